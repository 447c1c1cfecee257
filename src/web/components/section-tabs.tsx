// Tabs between the pages of one section (the user's settings, the deployment's), as links.
import { Link, useLocation } from '../router.js';

/** The user's own settings pages. */
export const ACCOUNT_TABS: readonly SectionTab[] = [
  { href: '/settings/account', label: 'Account' },
  { href: '/settings/security', label: 'Security' },
  { href: '/settings/appearance', label: 'Appearance' },
  { href: '/settings/tokens', label: 'Tokens' },
  { href: '/settings/ssh-keys', label: 'SSH keys' },
  { href: '/settings/schedule', label: 'Schedule' },
  { href: '/settings/external-auth', label: 'External authentication' },
  { href: '/settings/notifications', label: 'Notifications' },
];

/** The deployment's pages for its owners. */
export const DEPLOYMENT_TABS: readonly SectionTab[] = [
  { href: '/deployment', label: 'Overview' },
  { href: '/deployment/notifications', label: 'Notifications' },
  { href: '/deployment/settings', label: 'Settings' },
  { href: '/deployment/health', label: 'Health' },
  { href: '/deployment/licenses', label: 'Licenses' },
  { href: '/deployment/users', label: 'Users' },
  { href: '/organizations', label: 'Organizations' },
];

export interface SectionTab {
  readonly href: string;
  readonly label: string;
}

export function SectionTabs({ label, tabs }: { label: string; tabs: readonly SectionTab[] }) {
  const { pathname } = useLocation();
  return (
    <nav className="section-tabs" aria-label={label}>
      {tabs.map((tab) => (
        <Link
          key={tab.href}
          href={tab.href}
          className={pathname === tab.href ? 'section-tab active' : 'section-tab'}
          aria-current={pathname === tab.href ? 'page' : undefined}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
