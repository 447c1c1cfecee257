import { lazy, StrictMode, Suspense, useCallback, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { User } from '../sdk/wire/index.js';
import { api, ApiError, SIGNED_OUT } from './api.js';
import { ErrorMessage, Loading } from './components/feedback.js';
import { Shell } from './components/shell.js';
import { CreateWorkspacePage } from './pages/create-workspace.js';
import { DeploymentPage } from './pages/deployment.js';
import { LoginPage } from './pages/login.js';
import { TemplatePage } from './pages/template.js';
import { TemplatesPage } from './pages/templates.js';
import { WorkspacePage } from './pages/workspace.js';
import { WorkspacesPage } from './pages/workspaces.js';
import { matchRoute, navigate, useLocation, type Route } from './router.js';
import { SessionContext } from './session.js';
import '@xterm/xterm/css/xterm.css';
import './styles.css';

// The terminal brings xterm.js, the largest part of the dashboard: loaded only when opened.
const TerminalPage = lazy(() => import('./pages/terminal.js').then((module) => ({ default: module.TerminalPage })));

function App() {
  const { pathname, search } = useLocation();
  const route = matchRoute(pathname, search);
  const [user, setUser] = useState<User | null>();
  const [error, setError] = useState<unknown>();

  const refresh = useCallback(async () => {
    try {
      setUser(await api<User>('GET', '/users/me'));
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 401) setUser(null);
      else setError(failure);
    }
  }, []);
  useEffect(() => {
    void refresh();
    const signedOut = () => setUser(null);
    window.addEventListener(SIGNED_OUT, signedOut);
    return () => window.removeEventListener(SIGNED_OUT, signedOut);
  }, [refresh]);

  useEffect(() => {
    // A signed-out visit to any page goes to the sign-in, which comes back here afterwards.
    if (user === null && route.page !== 'login') {
      navigate(`/login?redirect=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
    }
  }, [user, route.page]);

  if (error) return <ErrorMessage error={error} />;
  if (route.page === 'login') return <LoginPage user={user} refresh={refresh} />;
  if (!user) return <Loading error={undefined} />;
  return (
    <SessionContext.Provider value={{ user, refresh }}>
      <Shell route={route}>
        <Suspense fallback={<Loading error={undefined} />}>
          <Page route={route} />
        </Suspense>
      </Shell>
    </SessionContext.Provider>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'workspaces':
      return <WorkspacesPage />;
    case 'create':
      return <CreateWorkspacePage template={route.template} />;
    case 'workspace':
      return <WorkspacePage key={`${route.owner}/${route.workspace}`} owner={route.owner} name={route.workspace} />;
    case 'terminal':
      return <TerminalPage owner={route.owner} name={route.workspace} agent={route.agent} />;
    case 'templates':
      return <TemplatesPage />;
    case 'template':
      return <TemplatePage key={route.name} name={route.name} />;
    case 'deployment':
      return <DeploymentPage />;
    default:
      return (
        <section className="page">
          <h1>Page not found</h1>
          <p>Nothing lives at this address.</p>
        </section>
      );
  }
}

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
