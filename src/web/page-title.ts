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
