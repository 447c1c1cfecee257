// Changing the user's password (`PUT /users/me/password`): the current one, then the new one twice.
// Only accounts that sign in with a password have one to change; the others are told why not.
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../api.js';
import { ActionStatus, useAction } from '../components/feedback.js';
import { useSession } from '../session.js';
import { SettingsHeader } from './settings-header.js';

export function SettingsSecurityPage() {
  const { user } = useSession();
  const [oldPassword, setOldPassword] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [tried, setTried] = useState(false);
  const mismatch = confirmation !== password;
  const [changed, change] = useAction(async () => {
    await api('PUT', '/users/me/password', { body: { old_password: oldPassword, password } });
    setOldPassword('');
    setPassword('');
    setConfirmation('');
    setTried(false);
    // The server ends every session of the account, this one too: the next request signs out.
    return 'Password changed. Every session of your account has been signed out; sign in again with the new password.';
  });
  const problem = (field: string) =>
    changed.state === 'error' && changed.error instanceof ApiError
      ? changed.error.validations.find((item) => item.field === field)?.detail
      : undefined;
  const oldProblem = problem('old_password');
  const newProblem = problem('password');
  const confirmationProblem = tried && mismatch ? 'The two new passwords differ.' : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (mismatch) return;
    void change();
  };

  if (user.login_type !== 'password')
    return (
      <section className="page">
        <SettingsHeader title="Security">Your password.</SettingsHeader>
        <div className="card">
          <p>{withoutPassword(user.login_type)}</p>
        </div>
      </section>
    );
  return (
    <section className="page">
      <SettingsHeader title="Security">
        Change the password you sign in with. Changing it signs out every session of your account.
      </SettingsHeader>
      <form className="card form settings-form" onSubmit={submit} aria-label="Change password" noValidate>
        <PasswordField
          id="old-password"
          label="Current password"
          value={oldPassword}
          onChange={setOldPassword}
          autoComplete="current-password"
          problem={oldProblem}
        />
        <PasswordField
          id="new-password"
          label="New password"
          value={password}
          onChange={setPassword}
          autoComplete="new-password"
          problem={newProblem}
          hint="A strong password: long, and not one you use elsewhere."
        />
        <PasswordField
          id="confirm-password"
          label="Confirm new password"
          value={confirmation}
          onChange={setConfirmation}
          autoComplete="new-password"
          problem={confirmationProblem}
        />
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={changed.state === 'pending' || !oldPassword || !password}>
            Change password
          </button>
          <ActionStatus state={changed} pending="Changing…" />
        </div>
      </form>
    </section>
  );
}

function PasswordField({
  id,
  label,
  value,
  onChange,
  autoComplete,
  problem,
  hint,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  autoComplete: string;
  problem: string | undefined;
  hint?: string;
}) {
  const note = problem ?? hint;
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        type="password"
        value={value}
        autoComplete={autoComplete}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={note ? `${id}-note` : undefined}
      />
      {note && (
        <p id={`${id}-note`} className={problem ? 'field-problem' : 'field-hint'}>
          {problem}
          {!problem && hint}
        </p>
      )}
    </div>
  );
}

/** Why an account that does not sign in with a password has none to change. */
function withoutPassword(loginType: string): string {
  if (loginType === 'oidc' || loginType === 'github')
    return `You sign in with ${loginType === 'oidc' ? 'OpenID Connect' : 'GitHub'}, not a password, so there is no password to change here: your sign-in provider manages your credentials.`;
  if (loginType === 'none') return 'Your account does not sign in: it is used through API tokens alone, so it has no password to change.';
  return `You sign in by “${loginType}”, not a password, so there is no password to change here.`;
}
