// A workspace's name. A rename moves the workspace's address, so the page follows it there; a
// deployment that forbids renames says so in its answer, which is shown as it came.
import { useState, type FormEvent } from 'react';
import type { Workspace } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, useAction } from '../components/feedback.js';
import { navigate } from '../router.js';

const NAME_PATTERN = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/;

export function GeneralSettings({ workspace }: { workspace: Workspace }) {
  const [name, setName] = useState(workspace.name);
  const problem =
    name === ''
      ? 'A name is required.'
      : !NAME_PATTERN.test(name) || name.length > 32
        ? 'Use up to 32 letters, digits and single dashes.'
        : undefined;
  const [rename, startRename] = useAction(async () => {
    await api('PATCH', `/workspaces/${workspace.id}`, { body: { name } });
    navigate(`/@${encodeURIComponent(workspace.owner_name)}/${encodeURIComponent(name)}/settings`, { replace: true });
    return `Renamed to ${name}.`;
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!problem && name !== workspace.name) void startRename();
  };
  return (
    <form className="form card" onSubmit={onSubmit} aria-labelledby="general-title" noValidate>
      <h2 id="general-title">General</h2>
      <label className="field">
        <span className="field-label">Name</span>
        <input
          name="name"
          value={name}
          autoComplete="off"
          aria-invalid={problem ? true : undefined}
          aria-describedby="rename-hint"
          onChange={(event) => setName(event.target.value)}
        />
        <span id="rename-hint" className={problem ? 'field-problem' : 'field-hint'}>
          {problem ??
            (workspace.allow_renames
              ? 'Renaming changes the workspace’s address and its host name for SSH; running connections may need the new name.'
              : 'This deployment does not allow renaming workspaces.')}
        </span>
      </label>
      <div className="form-actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={rename.state === 'pending' || name === workspace.name || !!problem}
        >
          Save
        </button>
        <ActionStatus state={rename} pending="Renaming…" />
      </div>
    </form>
  );
}
