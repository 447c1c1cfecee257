// The frame around every signed-in page: the deployment's banners, name and logo, navigation,
// help links and the user's menu.
import type { ReactNode } from 'react';
import { api } from '../api.js';
import { applicationName, useAppearance } from '../appearance.js';
import { Banners } from './banners.js';
import { ConnectionBanner } from './connection-banner.js';
import { BrandMark } from './brand-mark.js';
import { ActionStatus, useAction } from './feedback.js';
import { HelpMenu } from './help-menu.js';
import { ThemeSwitcher } from './theme-switcher.js';
import { Link, navigate, type Route } from '../router.js';
import { isOwner, mayAudit, useSession } from '../session.js';
import { InboxBell } from './inbox-bell.js';
import { useMayManageGroups } from '../group-permissions.js';
import { UserMenu } from './user-menu.js';

/** The main navigation's entry that a page belongs under, where it is not the page's own. */
const NAV_SECTIONS: Partial<Record<Route['page'], string>> = {
  create: 'workspaces',
  workspace: 'workspaces',
  'workspace-build': 'workspaces',
  'workspace-settings': 'workspaces',
  terminal: 'workspaces',
  template: 'templates',
  'template-new': 'templates',
  'template-versions': 'templates',
  'template-version': 'templates',
  'template-version-editor': 'templates',
  'template-settings': 'templates',
  'template-insights': 'templates',
  'template-permissions': 'templates',
  group: 'groups',
  'connection-log': 'audit',
  'deployment-notifications': 'deployment',
  'deployment-settings': 'deployment',
  health: 'deployment',
  licenses: 'deployment',
  'idp-sync-preview': 'deployment',
  users: 'deployment',
  'user-create': 'deployment',
  organizations: 'deployment',
  organization: 'deployment',
  'organization-members': 'deployment',
  'organization-roles': 'deployment',
};

export function Shell({ route, children }: { route: Route; children: ReactNode }) {
  const { user, refresh } = useSession();
  const appearance = useAppearance();
  const name = applicationName(appearance);
  const [signOut, startSignOut] = useAction(async () => {
    await api('POST', '/users/logout');
    navigate('/login', { replace: true });
    await refresh();
  });
  const mayManageGroups = useMayManageGroups();
  const section = NAV_SECTIONS[route.page] ?? route.page;
  const nav = [
    { href: '/workspaces', label: 'Workspaces', page: 'workspaces' },
    { href: '/templates', label: 'Templates', page: 'templates' },
    ...(mayManageGroups ? [{ href: '/groups', label: 'Groups', page: 'groups' }] : []),
    ...(isOwner(user) ? [{ href: '/deployment', label: 'Deployment', page: 'deployment' }] : []),
    ...(mayAudit(user) ? [{ href: '/audit', label: 'Audit', page: 'audit' }] : []),
  ];
  return (
    <div className={route.page === 'terminal' ? 'app app-terminal' : 'app'}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Banners />
      <ConnectionBanner />
      <header className="topbar">
        <Link className="brand" href="/workspaces" aria-label={`${name} home`}>
          <BrandMark logoUrl={appearance.logo_url} />
          {name}
        </Link>
        <nav aria-label="Main">
          <ul className="nav-list">
            {nav.map((item) => (
              <li key={item.href}>
                <Link
                  href={item.href}
                  className={section === item.page ? 'nav-link active' : 'nav-link'}
                  aria-current={section === item.page ? 'page' : undefined}
                >
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="user-menu">
          <HelpMenu />
          <ThemeSwitcher />
          <InboxBell />
          <UserMenu onSignOut={() => void startSignOut()} signingOut={signOut.state === 'pending'} />
          {signOut.state === 'error' && <ActionStatus state={signOut} />}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
