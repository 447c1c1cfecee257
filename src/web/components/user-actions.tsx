// What an administrator does to one user: their site roles, suspending or activating them, a new
// password, and deleting them. Actions that lock someone out ask first; the server decides.
import { useState, type FormEvent } from 'react';
import type { AssignableRole, User } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ConfirmButton } from './confirm-button.js';
import { ActionStatus, useAction } from './feedback.js';
import { RoleChoice } from './role-choice.js';

/** Letters, digits and a separator, 20 of them: well above the server's strength rule. */
const PASSWORD_ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-';

function generatedPassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return Array.from(bytes, (byte) => PASSWORD_ALPHABET[byte % PASSWORD_ALPHABET.length]).join('');
}

export function UserActions({
  user,
  me,
  siteRoles,
  onChange,
  onDelete,
}: {
  user: User;
  me: User;
  siteRoles: readonly AssignableRole[];
  onChange: (user: User) => void;
  onDelete: () => void;
}) {
  const self = user.id === me.id;
  return (
    <div className="user-actions" aria-label={`Manage ${user.username}`} role="group">
      <SiteRoles user={user} self={self} siteRoles={siteRoles} onChange={onChange} />
      {!self && <StatusAction user={user} onChange={onChange} />}
      {!self && user.login_type === 'password' && <PasswordReset user={user} />}
      {!self && <DeleteAction user={user} onDelete={onDelete} />}
      {self && <p className="muted">Your own roles, status and password are changed from your account, not here.</p>}
    </div>
  );
}

function SiteRoles({
  user,
  self,
  siteRoles,
  onChange,
}: {
  user: User;
  self: boolean;
  siteRoles: readonly AssignableRole[];
  onChange: (user: User) => void;
}) {
  const [chosen, setChosen] = useState<ReadonlySet<string>>(() => new Set(user.roles.map((role) => role.name)));
  const [saved, save] = useAction(async () => {
    // Only the roles this list offers: `member` is everyone's and never sent.
    const names = siteRoles.map((role) => role.name).filter((name) => chosen.has(name));
    onChange(await api<User>('PUT', `/users/${user.id}/roles`, { body: { roles: names } }));
    return 'Roles saved.';
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save();
  };
  return (
    <form className="user-action" onSubmit={submit} aria-label={`Site roles of ${user.username}`}>
      <RoleChoice legend="Site roles" roles={siteRoles} chosen={chosen} onChange={setChosen} disabled={self || saved.state === 'pending'} />
      {!self && (
        <div className="inline-actions">
          <button type="submit" className="button">
            Save roles
          </button>
          <ActionStatus state={saved} pending="Saving…" />
        </div>
      )}
    </form>
  );
}

function StatusAction({ user, onChange }: { user: User; onChange: (user: User) => void }) {
  const [changed, change] = useAction(async (to: 'suspend' | 'activate') => {
    onChange(await api<User>('PUT', `/users/${user.id}/status/${to}`));
    return to === 'suspend' ? `${user.username} is suspended.` : `${user.username} is active.`;
  });
  const suspended = user.status === 'suspended';
  return (
    <div className="user-action inline-actions">
      {suspended ? (
        <ConfirmButton
          label={`Activate ${user.username}`}
          question={`Activate ${user.username}? They can sign in again.`}
          confirmLabel="Activate"
          onConfirm={() => void change('activate')}
          disabled={changed.state === 'pending'}
        />
      ) : (
        <ConfirmButton
          label={`Suspend ${user.username}`}
          question={`Suspend ${user.username}? They cannot sign in or use their workspaces until activated.`}
          confirmLabel="Suspend"
          danger
          onConfirm={() => void change('suspend')}
          disabled={changed.state === 'pending'}
        />
      )}
      <ActionStatus state={changed} pending="Saving…" />
    </div>
  );
}

function PasswordReset({ user }: { user: User }) {
  const [password, setPassword] = useState('');
  const [given, setGiven] = useState('');
  const [reset, start] = useAction(async () => {
    await api('PUT', `/users/${user.id}/password`, { body: { password } });
    // Shown once, for the administrator to hand over; their sessions ended with the change.
    setGiven(password);
    setPassword('');
    return `Password of ${user.username} changed; their sessions have ended.`;
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setGiven('');
    void start();
  };
  const inputId = `password-${user.id}`;
  return (
    <form className="user-action form-inline" onSubmit={submit} aria-label={`New password for ${user.username}`}>
      <label className="field" htmlFor={inputId}>
        <span className="field-label">New password</span>
        <input
          id={inputId}
          name="password"
          type="text"
          autoComplete="new-password"
          spellCheck={false}
          value={password}
          required
          onChange={(event) => setPassword(event.target.value)}
        />
      </label>
      <div className="inline-actions">
        <button type="button" className="button button-quiet" onClick={() => setPassword(generatedPassword())}>
          Generate
        </button>
        <button type="submit" className="button">
          Set password
        </button>
        <ActionStatus state={reset} pending="Saving…" />
      </div>
      {given && reset.state === 'done' && (
        <p className="user-new-password">
          Give {user.username} this password now; it is not shown again: <code>{given}</code>
        </p>
      )}
    </form>
  );
}

function DeleteAction({ user, onDelete }: { user: User; onDelete: () => void }) {
  const [deleted, destroy] = useAction(async () => {
    await api('DELETE', `/users/${user.id}`);
    onDelete();
  });
  return (
    <div className="user-action inline-actions">
      <ConfirmButton
        label={`Delete ${user.username}`}
        question={`Delete ${user.username}? This cannot be undone.`}
        confirmLabel="Delete"
        danger
        onConfirm={() => void destroy()}
        disabled={deleted.state === 'pending'}
      />
      <ActionStatus state={deleted} pending="Deleting…" />
    </div>
  );
}
