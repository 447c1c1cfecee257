// Sign-in, and on a new deployment the form that creates its first user (the owner).
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import type { User } from '../../sdk/wire/index.js';
import { api, ApiError } from '../api.js';
import { applicationName, useAppearance } from '../appearance.js';
import { ActionStatus, ErrorMessage, Loading, useAction } from '../components/feedback.js';
import { Banners } from '../components/banners.js';
import { BrandMark } from '../components/brand-mark.js';
import { isDashboardPath, navigate } from '../router.js';

/**
 * Where to go after signing in. Same-origin dashboard pages open in place; other same-origin paths
 * (apps under `/@owner/workspace/apps/...`) load in full. An absolute URL elsewhere (a subdomain
 * app) goes through the server's auth-redirect, which accepts only its own app hosts. Anything
 * else is ignored.
 */
export function afterSignIn(redirect: string | null): void {
  const target = redirect ?? '/workspaces';
  let url: URL;
  try {
    url = new URL(target, location.origin);
  } catch {
    navigate('/workspaces', { replace: true });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    navigate('/workspaces', { replace: true });
    return;
  }
  if (url.origin !== location.origin) {
    location.assign(`/api/v2/applications/auth-redirect?redirect_uri=${encodeURIComponent(url.href)}`);
    return;
  }
  const path = url.pathname + url.search + url.hash;
  if (url.pathname === '/login') navigate('/workspaces', { replace: true });
  else if (isDashboardPath(path)) navigate(path, { replace: true });
  else location.assign(path);
}

export function LoginPage({ user, refresh }: { user: User | null | undefined; refresh: () => Promise<void> }) {
  const redirect = new URLSearchParams(location.search).get('redirect');
  const [hasFirstUser, setHasFirstUser] = useState<boolean>();
  const [loadError, setLoadError] = useState<unknown>();

  useEffect(() => {
    api('GET', '/users/first').then(
      () => setHasFirstUser(true),
      (error: unknown) => (error instanceof ApiError && error.status === 404 ? setHasFirstUser(false) : setLoadError(error)),
    );
  }, []);

  if (user) {
    return (
      <AuthFrame title="You are signed in">
        <p>
          Signed in as <strong>{user.username}</strong> ({user.email}).
        </p>
        <div className="form-actions">
          <button type="button" className="button button-primary" onClick={() => afterSignIn(redirect)}>
            Continue
          </button>
          <SignOutButton refresh={refresh} />
        </div>
      </AuthFrame>
    );
  }
  if (hasFirstUser === undefined) return <AuthFrame title="Sign in">{<Loading error={loadError} />}</AuthFrame>;
  return hasFirstUser ? (
    <SignInForm redirect={redirect} refresh={refresh} />
  ) : (
    <FirstUserForm redirect={redirect} refresh={refresh} onCreated={() => setHasFirstUser(true)} />
  );
}

function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  const appearance = useAppearance();
  return (
    <main className="auth" id="main">
      <Banners />
      <div className="auth-card">
        <div className="brand brand-large">
          <BrandMark logoUrl={appearance.logo_url} />
          {applicationName(appearance)}
        </div>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

function SignOutButton({ refresh }: { refresh: () => Promise<void> }) {
  const [state, start] = useAction(async () => {
    await api('POST', '/users/logout');
    await refresh();
    return 'Signed out.';
  });
  return (
    <>
      <button type="button" className="button" onClick={() => void start()} disabled={state.state === 'pending'}>
        Sign out
      </button>
      <ActionStatus state={state} pending="Signing out…" />
    </>
  );
}

function SignInForm({ redirect, refresh }: { redirect: string | null; refresh: () => Promise<void> }) {
  const [state, submit] = useAction(async (email: string, password: string) => {
    await api('POST', '/users/login', { body: { email, password } });
    await refresh();
    afterSignIn(redirect);
    return 'Signed in.';
  });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void submit(String(form.get('email')), String(form.get('password')));
  };
  return (
    <AuthFrame title="Sign in">
      <form className="form" onSubmit={onSubmit} aria-label="Sign in">
        <label className="field">
          <span className="field-label">Email</span>
          <input name="email" type="email" autoComplete="email" required autoFocus />
        </label>
        <label className="field">
          <span className="field-label">Password</span>
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <button type="submit" className="button button-primary button-wide" disabled={state.state === 'pending'}>
          {state.state === 'pending' ? 'Signing in…' : 'Sign in'}
        </button>
        {state.state === 'error' && <ErrorMessage error={state.error} />}
      </form>
    </AuthFrame>
  );
}

function FirstUserForm({ redirect, refresh, onCreated }: { redirect: string | null; refresh: () => Promise<void>; onCreated: () => void }) {
  const [state, submit] = useAction(async (body: { email: string; username: string; password: string; name: string }) => {
    await api('POST', '/users/first', { body });
    await api('POST', '/users/login', { body: { email: body.email, password: body.password } });
    onCreated();
    await refresh();
    afterSignIn(redirect);
    return 'Created.';
  });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void submit({
      email: String(form.get('email')),
      username: String(form.get('username')),
      name: String(form.get('name') ?? ''),
      password: String(form.get('password')),
    });
  };
  return (
    <AuthFrame title="Create the first user">
      <p className="muted">This deployment has no users yet. The first one owns it and can invite the others.</p>
      <form className="form" onSubmit={onSubmit} aria-label="Create the first user">
        <label className="field">
          <span className="field-label">Email</span>
          <input name="email" type="email" autoComplete="email" required autoFocus />
        </label>
        <label className="field">
          <span className="field-label">Username</span>
          <input name="username" autoComplete="username" required pattern="[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*" maxLength={32} />
          <span className="field-hint">Letters, digits and single dashes.</span>
        </label>
        <label className="field">
          <span className="field-label">Full name (optional)</span>
          <input name="name" autoComplete="name" />
        </label>
        <label className="field">
          <span className="field-label">Password</span>
          <input name="password" type="password" autoComplete="new-password" required minLength={6} />
        </label>
        <button type="submit" className="button button-primary button-wide" disabled={state.state === 'pending'}>
          {state.state === 'pending' ? 'Creating…' : 'Create user and sign in'}
        </button>
        {state.state === 'error' && <ErrorMessage error={state.error} />}
      </form>
    </AuthFrame>
  );
}
