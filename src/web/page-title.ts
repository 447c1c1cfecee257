// The browser tab's title for each dashboard page: what the page shows first, then the deployment's
// name, so that a row of tabs (and the history menu) tells them apart.
import type { Route } from './router.js';

/** The words naming a page, without the deployment's name. */
function pageName(route: Route): string {
  switch (route.page) {
    case 'login':
      return 'Sign in';
    case 'workspaces':
      return 'Workspaces';
    case 'create':
      return route.template ? `New workspace from ${route.template}` : 'New workspace';
    case 'workspace':
      return `${route.owner}/${route.workspace}`;
    case 'terminal':
      return `Terminal: ${route.owner}/${route.workspace}${route.agent ? `.${route.agent}` : ''}`;
    case 'templates':
      return 'Templates';
    case 'template':
      return `Template ${route.name}`;
    case 'template-permissions':
      return `Permissions of ${route.name}`;
    case 'template-new':
      return 'New template';
    case 'template-versions':
      return `Versions of ${route.name}`;
    case 'template-settings':
      return `Settings of ${route.name}`;
    case 'template-insights':
      return `Insights of ${route.name}`;
    case 'deployment':
      return 'Deployment';
    case 'idp-sync-preview':
      return 'Group and role sync';
    case 'groups':
      return 'Groups';
    case 'group':
      return `Group ${route.name}`;
    case 'external-auth':
      return `Link ${route.provider}`;
    case 'external-auth-settings':
      return 'External authentication';
    case 'audit':
      return 'Audit log';
    case 'connection-log':
      return 'Connection log';
    case 'notification-settings':
      return 'Notification settings';
    case 'deployment-notifications':
      return 'Notifications';
    case 'deployment-settings':
      return 'Deployment settings';
    case 'health':
      return 'Health';
    case 'licenses':
      return 'Licenses';
    case 'workspace-build':
      return `Build #${route.buildNumber} of ${route.owner}/${route.workspace}`;
    case 'workspace-settings':
      return `${{ general: 'Settings', parameters: 'Parameters', schedule: 'Schedule', version: 'Version' }[route.section]} of ${route.owner}/${route.workspace}`;
    case 'users':
      return 'Users';
    case 'user-create':
      return 'New user';
    case 'organizations':
      return 'Organizations';
    case 'organization':
      return `Organization ${route.name}`;
    case 'organization-members':
      return `Members of ${route.name}`;
    case 'organization-roles':
      return `Roles of ${route.name}`;
    case 'template-version':
      return `Version ${route.version} of ${route.template}`;
    case 'template-version-editor':
      return `Editing ${route.template}`;
    case 'settings-account':
      return 'Account';
    case 'settings-security':
      return 'Security';
    case 'settings-appearance':
      return 'Appearance';
    case 'settings-tokens':
      return 'Tokens';
    case 'settings-ssh-keys':
      return 'SSH keys';
    case 'settings-schedule':
      return 'Schedule';
    case 'not-found':
      return 'Page not found';
  }
}

/** `Workspaces · Cove`: the page, then the deployment's name. */
export function pageTitle(route: Route, applicationName: string): string {
  return `${pageName(route)} · ${applicationName}`;
}
