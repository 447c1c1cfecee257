// The user's profile: their username and display name (`PUT /users/me/profile`), with the email and
// login type they sign in with, which only the deployment's administrators change.
import { useState, type FormEvent } from 'react';
import type { User } from '../../sdk/wire/index.js';
import { api, ApiError } from '../api.js';
import { ActionStatus, useAction } from '../components/feedback.js';
import { useSession } from '../session.js';
import { SettingsHeader } from './settings-header.js';

/** How each login type reads. */
const LOGIN_TYPES: Readonly<Record<string, string>> = {
  password: 'Password',
  github: 'GitHub',
  oidc: 'OpenID Connect',
  token: 'Token',
  none: 'None (no sign-in)',
};

export function SettingsAccountPage() {
  const { user, refresh } = useSession();
  const [username, setUsername] = useState(user.username);
  const [name, setName] = useState(user.name ?? '');
  const [saved, save] = useAction(async () => {
    await api<User>('PUT', '/users/me/profile', { body: { username: username.trim(), name: name.trim() } });
    // The header and every page show the session's user: read it again.
    await refresh();
    return 'Profile saved.';
  });
  const problem = (field: string) =>
    saved.state === 'error' && saved.error instanceof ApiError
      ? saved.error.validations.find((item) => item.field === field)?.detail
      : undefined;
  const usernameProblem = problem('username');
  const nameProblem = problem('name');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save();
  };
  return (
    <section className="page">
      <SettingsHeader title="Account">Your name as others see it, and how you sign in.</SettingsHeader>
      <form className="card form settings-form" onSubmit={submit} aria-label="Profile">
        <div className="field">
          <label className="field-label" htmlFor="profile-email">
            Email
          </label>
          <input id="profile-email" value={user.email} readOnly aria-describedby="profile-email-hint" />
          <p id="profile-email-hint" className="field-hint">
            Set by the deployment&apos;s administrators.
          </p>
        </div>
        <div className="field">
          <label className="field-label" htmlFor="profile-username">
            Username
          </label>
          <input
            id="profile-username"
            value={username}
            required
            autoComplete="username"
            spellCheck={false}
            onChange={(event) => setUsername(event.target.value)}
            aria-invalid={usernameProblem ? true : undefined}
            aria-describedby="profile-username-hint"
          />
          <p id="profile-username-hint" className={usernameProblem ? 'field-problem' : 'field-hint'}>
            {usernameProblem ?? 'Part of your workspaces’ addresses: letters, digits and single hyphens.'}
          </p>
        </div>
        <div className="field">
          <label className="field-label" htmlFor="profile-name">
            Name <span className="required">(optional)</span>
          </label>
          <input
            id="profile-name"
            value={name}
            autoComplete="name"
            onChange={(event) => setName(event.target.value)}
            aria-invalid={nameProblem ? true : undefined}
            aria-describedby={nameProblem ? 'profile-name-problem' : undefined}
          />
          {nameProblem && (
            <p id="profile-name-problem" className="field-problem">
              {nameProblem}
            </p>
          )}
        </div>
        <dl className="account-facts">
          <dt>Login type</dt>
          <dd>{Object.hasOwn(LOGIN_TYPES, user.login_type) ? LOGIN_TYPES[user.login_type] : user.login_type}</dd>
        </dl>
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={saved.state === 'pending'}>
            Save profile
          </button>
          <ActionStatus state={saved} pending="Saving…" />
        </div>
      </form>
    </section>
  );
}
