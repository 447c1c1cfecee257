import { lazy, StrictMode, Suspense, useCallback, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { AppearanceConfig, User } from '../sdk/wire/index.js';
import { api, ApiError, SIGNED_OUT } from './api.js';
import { AppearanceContext, applicationName, loadAppearance, rememberedAppearance } from './appearance.js';
import { ErrorMessage, Loading } from './components/feedback.js';
import { Shell } from './components/shell.js';
import { CreateWorkspacePage } from './pages/create-workspace.js';
import { DeploymentPage } from './pages/deployment.js';
import { ExternalAuthPage } from './pages/external-auth-page.js';
import { ExternalAuthSettingsPage } from './pages/external-auth-settings-page.js';
import { IdpSyncPreviewPage } from './pages/idp-sync-preview.js';
import { GroupPage } from './pages/group.js';
import { GroupsPage } from './pages/groups.js';
import { LoginPage } from './pages/login.js';
import { TemplatePage } from './pages/template.js';
import { TemplatePermissionsPage } from './pages/template-permissions.js';
import { TemplatesPage } from './pages/templates.js';
import { WorkspacePage } from './pages/workspace.js';
import { WorkspacesPage } from './pages/workspaces.js';
import { AuditPage } from './pages/audit.js';
import { ConnectionLogPage } from './pages/connection-log.js';
import { DeploymentNotificationsPage } from './pages/deployment-notifications.js';
import { NotificationSettingsPage } from './pages/notification-settings.js';
import { pageTitle } from './page-title.js';
import { Link, matchRoute, navigate, useLocation, type Route } from './router.js';
import { SessionContext } from './session.js';
import { applyRememberedTheme, applyTheme } from './theme.js';
import '@xterm/xterm/css/xterm.css';
import './styles.css';
// Each area's own rules, after the shared ones, in the order they were written.
import './styles/deployment-admin.css';
import './styles/workspace-diagnostics.css';
import './styles/workspace-settings.css';
import './styles/users-admin.css';
import './styles/templates.css';
import './styles/template-editor.css';
import './styles/account-settings.css';
import './styles/workspaces-list.css';
import './activity.css';

// Before anything renders: the theme this browser last showed, until the user's own is read.
applyRememberedTheme();

// The terminal brings xterm.js, the largest part of the dashboard: loaded only when opened.
const TerminalPage = lazy(() => import('./pages/terminal.js').then((module) => ({ default: module.TerminalPage })));
const DeploymentSettingsPage = lazy(() =>
  import('./pages/deployment-settings.js').then((module) => ({ default: module.DeploymentSettingsPage })),
);
const HealthPage = lazy(() => import('./pages/health.js').then((module) => ({ default: module.HealthPage })));
const LicensesPage = lazy(() => import('./pages/licenses.js').then((module) => ({ default: module.LicensesPage })));
// A build's own page, with its timings chart: opened from the workspace's history, so loaded then.
const WorkspaceBuildPage = lazy(() => import('./pages/workspace-build.js').then((module) => ({ default: module.WorkspaceBuildPage })));
const WorkspaceSettingsPage = lazy(() =>
  import('./pages/workspace-settings.js').then((module) => ({ default: module.WorkspaceSettingsPage })),
);
// The administration of users and organizations, for the few who run the deployment.
const UsersPage = lazy(() => import('./pages/users.js').then((module) => ({ default: module.UsersPage })));
const UserCreatePage = lazy(() => import('./pages/user-create.js').then((module) => ({ default: module.UserCreatePage })));
const OrganizationsPage = lazy(() => import('./pages/organizations.js').then((module) => ({ default: module.OrganizationsPage })));
const OrganizationPage = lazy(() => import('./pages/organization.js').then((module) => ({ default: module.OrganizationPage })));
const OrganizationMembersPage = lazy(() =>
  import('./pages/organization-members.js').then((module) => ({ default: module.OrganizationMembersPage })),
);
const OrganizationRolesPage = lazy(() =>
  import('./pages/organization-roles.js').then((module) => ({ default: module.OrganizationRolesPage })),
);
// Managing templates is for their admins, rarely opened: each page loads when first shown.
const TemplateCreatePage = lazy(() => import('./pages/template-create.js').then((module) => ({ default: module.TemplateCreatePage })));
const TemplateVersionsPage = lazy(() =>
  import('./pages/template-versions.js').then((module) => ({ default: module.TemplateVersionsPage })),
);
const TemplateSettingsPage = lazy(() =>
  import('./pages/template-settings.js').then((module) => ({ default: module.TemplateSettingsPage })),
);
const TemplateInsightsPage = lazy(() =>
  import('./pages/template-insights.js').then((module) => ({ default: module.TemplateInsightsPage })),
);
// The template version pages bring CodeMirror: loaded only when a version's files are opened.
const TemplateVersionPage = lazy(() => import('./pages/template-version.js').then((module) => ({ default: module.TemplateVersionPage })));
const TemplateVersionEditorPage = lazy(() =>
  import('./pages/template-version-editor.js').then((module) => ({ default: module.TemplateVersionEditorPage })),
);
// The user's own settings pages, each loaded when first opened.
const SettingsAccountPage = lazy(() => import('./pages/settings-account.js').then((module) => ({ default: module.SettingsAccountPage })));
const SettingsSecurityPage = lazy(() =>
  import('./pages/settings-security.js').then((module) => ({ default: module.SettingsSecurityPage })),
);
const SettingsAppearancePage = lazy(() =>
  import('./pages/settings-appearance.js').then((module) => ({ default: module.SettingsAppearancePage })),
);
const SettingsTokensPage = lazy(() => import('./pages/settings-tokens.js').then((module) => ({ default: module.SettingsTokensPage })));
const SettingsSshKeysPage = lazy(() => import('./pages/settings-ssh-keys.js').then((module) => ({ default: module.SettingsSshKeysPage })));
const SettingsSchedulePage = lazy(() =>
  import('./pages/settings-schedule.js').then((module) => ({ default: module.SettingsSchedulePage })),
);

function App() {
  const { pathname, search } = useLocation();
  const route = matchRoute(pathname, search);
  const [user, setUser] = useState<User | null>();
  const [appearance, setAppearance] = useState<AppearanceConfig>(rememberedAppearance);
  const [error, setError] = useState<unknown>();

  const refresh = useCallback(async () => {
    // Read side by side; the appearance never fails (signed out, the remembered one stands in).
    const deployment = loadAppearance();
    try {
      const me = await api<User>('GET', '/users/me');
      // Applied before the signed-in page renders, so that it paints in the user's theme.
      applyTheme(me.theme_preference);
      setAppearance(await deployment);
      setUser(me);
    } catch (failure) {
      setAppearance(await deployment);
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

  const title = pageTitle(route, applicationName(appearance));
  useEffect(() => {
    document.title = title;
  }, [title]);

  if (error) return <ErrorMessage error={error} />;
  if (route.page === 'login')
    return (
      <AppearanceContext.Provider value={appearance}>
        <LoginPage user={user} refresh={refresh} />
      </AppearanceContext.Provider>
    );
  if (!user) return <Loading error={undefined} />;
  return (
    <AppearanceContext.Provider value={appearance}>
      <SessionContext.Provider value={{ user, refresh }}>
        <Shell route={route}>
          <Suspense fallback={<Loading error={undefined} />}>
            <Page route={route} />
          </Suspense>
        </Shell>
      </SessionContext.Provider>
    </AppearanceContext.Provider>
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
    case 'template-permissions':
      return <TemplatePermissionsPage key={route.name} name={route.name} />;
    case 'template-new':
      return <TemplateCreatePage />;
    case 'template-versions':
      return <TemplateVersionsPage key={route.name} name={route.name} />;
    case 'template-settings':
      return <TemplateSettingsPage key={route.name} name={route.name} />;
    case 'template-insights':
      return <TemplateInsightsPage key={route.name} name={route.name} />;
    case 'deployment':
      return <DeploymentPage />;
    case 'idp-sync-preview':
      return <IdpSyncPreviewPage key={route.user ?? ''} user={route.user} />;
    case 'groups':
      return <GroupsPage />;
    case 'group':
      return <GroupPage key={`${route.organization}/${route.name}`} organization={route.organization} name={route.name} />;
    case 'external-auth':
      return <ExternalAuthPage key={route.provider} provider={route.provider} />;
    case 'external-auth-settings':
      return <ExternalAuthSettingsPage />;
    case 'audit':
      return <AuditPage />;
    case 'connection-log':
      return <ConnectionLogPage />;
    case 'notification-settings':
      return <NotificationSettingsPage />;
    case 'deployment-notifications':
      return <DeploymentNotificationsPage />;
    case 'deployment-settings':
      return <DeploymentSettingsPage />;
    case 'health':
      return <HealthPage />;
    case 'licenses':
      return <LicensesPage />;
    case 'workspace-build':
      return (
        <WorkspaceBuildPage
          key={`${route.owner}/${route.workspace}/${route.buildNumber}`}
          owner={route.owner}
          name={route.workspace}
          buildNumber={route.buildNumber}
        />
      );
    case 'workspace-settings':
      return (
        <WorkspaceSettingsPage
          key={`${route.owner}/${route.workspace}`}
          owner={route.owner}
          name={route.workspace}
          section={route.section}
        />
      );
    case 'users':
      return <UsersPage />;
    case 'user-create':
      return <UserCreatePage />;
    case 'organizations':
      return <OrganizationsPage />;
    case 'organization':
      return <OrganizationPage key={route.name} name={route.name} />;
    case 'organization-members':
      return <OrganizationMembersPage key={route.name} name={route.name} />;
    case 'organization-roles':
      return <OrganizationRolesPage key={route.name} name={route.name} />;
    case 'template-version':
      return <TemplateVersionPage key={`${route.template}/${route.version}`} template={route.template} version={route.version} />;
    case 'template-version-editor':
      return <TemplateVersionEditorPage key={`${route.template}/${route.version}`} template={route.template} version={route.version} />;
    case 'settings-account':
      return <SettingsAccountPage />;
    case 'settings-security':
      return <SettingsSecurityPage />;
    case 'settings-appearance':
      return <SettingsAppearancePage />;
    case 'settings-tokens':
      return <SettingsTokensPage />;
    case 'settings-ssh-keys':
      return <SettingsSshKeysPage />;
    case 'settings-schedule':
      return <SettingsSchedulePage />;
    default:
      return (
        <section className="page">
          <h1>Page not found</h1>
          <p>Nothing lives at this address. It may have been moved or deleted, or the link was mistyped.</p>
          <p>
            <Link href="/workspaces" className="button button-primary">
              Go to your workspaces
            </Link>
          </p>
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
