// The user's API tokens (`/users/me/keys/tokens`): the ones they hold, a form to create one with a
// name and a lifetime no longer than the deployment allows, and deleting one. A new token's secret
// is shown once, as the server gives it only in its answer to the creation.
import { useState, type FormEvent } from 'react';
import type { ApiKeyWithOwner, GenerateApiKeyResponse, TokenConfig } from '../../sdk/wire/index.js';
import { api, ApiError } from '../api.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { CopyCommand } from '../components/copy-command.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { Time } from '../components/status.js';
import { SettingsHeader } from './settings-header.js';

const NS_PER_DAY = 86_400 * 1e9;
/** The lifetimes offered first, in days; longer ones than the deployment allows are left out. */
const LIFETIME_CHOICES = [7, 30, 60, 90] as const;
const CUSTOM = 'custom';

export function SettingsTokensPage() {
  const tokens = useLoad(() => api<ApiKeyWithOwner[] | null>('GET', '/users/me/keys/tokens').then((list) => list ?? []), []);
  const config = useLoad(() => api<TokenConfig>('GET', '/users/me/keys/tokens/tokenconfig'), []);
  const [secret, setSecret] = useState<{ name: string; key: string }>();
  const [deleted, remove] = useAction(async (token: ApiKeyWithOwner) => {
    await api('DELETE', `/users/me/keys/${encodeURIComponent(token.id)}`);
    tokens.reload();
    if (secret?.name === token.token_name) setSecret(undefined);
    return `Token ${token.token_name} deleted.`;
  });
  return (
    <section className="page">
      <SettingsHeader title="Tokens">
        Tokens let scripts and tools use the API as you. Anyone holding one can act as you until it expires or is deleted.
      </SettingsHeader>
      {config.data ? (
        <CreateTokenForm
          maxDays={config.data.max_token_lifetime / NS_PER_DAY}
          onCreated={(name, key) => {
            setSecret({ name, key });
            tokens.reload();
          }}
        />
      ) : (
        <Loading error={config.error} />
      )}
      {secret && (
        <div className="card token-secret" role="status">
          <h2>Token {secret.name} created</h2>
          <p>Copy it now: it is shown only this once.</p>
          <CopyCommand command={secret.key} label="Copy the token" />
          <div className="form-actions">
            <button type="button" className="button button-quiet" onClick={() => setSecret(undefined)}>
              Done, hide it
            </button>
          </div>
        </div>
      )}
      <ActionStatus state={deleted} pending="Deleting…" />
      {!tokens.data ? (
        <Loading error={tokens.error} />
      ) : tokens.data.length === 0 ? (
        <div className="empty">
          <p>You hold no tokens.</p>
        </div>
      ) : (
        <div className="table-scroll">
          <table className="table" aria-label="Tokens">
            <thead>
              <tr>
                <th>Name</th>
                <th>Created</th>
                <th>Last used</th>
                <th>Expires</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((token) => (
                <tr key={token.id} aria-label={token.token_name}>
                  <td>{token.token_name}</td>
                  <td>
                    <Time iso={token.created_at} />
                  </td>
                  <td>
                    <Time iso={everUsed(token.last_used) ? token.last_used : undefined} />
                  </td>
                  <td>
                    <Time iso={token.expires_at} />
                  </td>
                  <td>
                    <ConfirmButton
                      label="Delete"
                      question={`Delete token ${token.token_name}? What uses it stops working.`}
                      confirmLabel="Yes, delete it"
                      danger
                      disabled={deleted.state === 'pending'}
                      onConfirm={() => void remove(token)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The server writes a zero time for a token never used. */
function everUsed(iso: string): boolean {
  return new Date(iso).getUTCFullYear() > 1;
}

function CreateTokenForm({ maxDays, onCreated }: { maxDays: number; onCreated: (name: string, key: string) => void }) {
  const choices = LIFETIME_CHOICES.filter((days) => days <= maxDays);
  const [name, setName] = useState('');
  const [lifetime, setLifetime] = useState<string>(String(choices.includes(30) ? 30 : (choices[0] ?? CUSTOM)));
  const [customDays, setCustomDays] = useState('');
  const days = lifetime === CUSTOM ? Number(customDays) : Number(lifetime);
  const customProblem =
    lifetime !== CUSTOM || customDays === ''
      ? undefined
      : !Number.isInteger(days) || days < 1
        ? 'A whole number of days, at least 1.'
        : days > maxDays
          ? `At most ${formatDays(maxDays)}, the longest this deployment allows.`
          : undefined;
  const [created, create] = useAction(async () => {
    const tokenName = name.trim();
    const answer = await api<GenerateApiKeyResponse>('POST', '/users/me/keys/tokens', {
      body: { token_name: tokenName, lifetime: days * NS_PER_DAY },
    });
    setName('');
    onCreated(tokenName, answer.key);
  });
  const nameProblem =
    created.state === 'error' && created.error instanceof ApiError
      ? created.error.validations.find((item) => item.field === 'token_name' || item.field === 'name')?.detail
      : undefined;
  const ready = name.trim() !== '' && Number.isInteger(days) && days >= 1 && days <= maxDays;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (ready) void create();
  };
  return (
    <form className="card form settings-form" onSubmit={submit} aria-label="New token">
      <h2>New token</h2>
      <div className="field">
        <label className="field-label" htmlFor="token-name">
          Name
        </label>
        <input
          id="token-name"
          value={name}
          maxLength={128}
          required
          spellCheck={false}
          onChange={(event) => setName(event.target.value)}
          aria-invalid={nameProblem ? true : undefined}
          aria-describedby="token-name-note"
        />
        <p id="token-name-note" className={nameProblem ? 'field-problem' : 'field-hint'}>
          {nameProblem ?? 'What the token is for, such as the tool that will use it.'}
        </p>
      </div>
      <div className="field">
        <label className="field-label" htmlFor="token-lifetime">
          Lifetime
        </label>
        <select
          id="token-lifetime"
          value={lifetime}
          onChange={(event) => setLifetime(event.target.value)}
          aria-describedby="token-lifetime-hint"
        >
          {choices.map((choice) => (
            <option key={choice} value={String(choice)}>
              {choice} days
            </option>
          ))}
          <option value={CUSTOM}>Custom…</option>
        </select>
        <p id="token-lifetime-hint" className="field-hint">
          At most {formatDays(maxDays)} on this deployment.
        </p>
      </div>
      {lifetime === CUSTOM && (
        <div className="field">
          <label className="field-label" htmlFor="token-days">
            Days
          </label>
          <input
            id="token-days"
            type="number"
            inputMode="numeric"
            min={1}
            max={Math.floor(maxDays)}
            step={1}
            value={customDays}
            onChange={(event) => setCustomDays(event.target.value)}
            aria-invalid={customProblem ? true : undefined}
            aria-describedby={customProblem ? 'token-days-problem' : undefined}
          />
          {customProblem && (
            <p id="token-days-problem" className="field-problem">
              {customProblem}
            </p>
          )}
        </div>
      )}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={!ready || created.state === 'pending'}>
          Create token
        </button>
        {created.state !== 'done' && <ActionStatus state={created} pending="Creating…" />}
      </div>
    </form>
  );
}

/** A number of days as a person reads it: whole days, or years when it is that long. */
function formatDays(days: number): string {
  if (days >= 730) return `${Math.floor(days / 365)} years`;
  const whole = Math.floor(days);
  return whole === 1 ? '1 day' : `${whole} days`;
}
