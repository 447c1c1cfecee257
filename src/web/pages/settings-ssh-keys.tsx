// The user's git SSH key (`/users/me/gitsshkey`): the public half to add to a git host, and making a
// new pair, which breaks access wherever the old public key was added.
import type { GitSshKey } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { CopyCommand } from '../components/copy-command.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { Time } from '../components/status.js';
import { SettingsHeader } from './settings-header.js';

export function SettingsSshKeysPage() {
  const key = useLoad(() => api<GitSshKey>('GET', '/users/me/gitsshkey'), []);
  const [regenerated, regenerate] = useAction(async () => {
    key.setData(await api<GitSshKey>('PUT', '/users/me/gitsshkey'));
    return 'A new key was made. Add its public key to your git hosts in place of the old one.';
  });
  return (
    <section className="page">
      <SettingsHeader title="SSH keys">
        Your workspaces use this key for git over SSH. Add the public key to your account on each git host you push to.
      </SettingsHeader>
      {key.data ? (
        <div className="card">
          <h2>Public key</h2>
          <CopyCommand command={key.data.public_key.trim()} label="Copy the public key" />
          <p className="field-hint">
            Made <Time iso={key.data.updated_at} />.
          </p>
          <div className="form-actions">
            <ConfirmButton
              label="Regenerate"
              question="Make a new key? The old one stops working wherever you added it."
              confirmLabel="Yes, make a new key"
              danger
              disabled={regenerated.state === 'pending'}
              onConfirm={() => void regenerate()}
            />
            <ActionStatus state={regenerated} pending="Making a new key…" />
          </div>
        </div>
      ) : (
        <Loading error={key.error} />
      )}
    </section>
  );
}
