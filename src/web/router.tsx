// A small router over the History API: the current location as React state, links that push
// history entries, and matching of the dashboard's URL patterns.
import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

const NAVIGATED = 'cove:navigated';

/** Goes to a dashboard URL without reloading the page. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.dispatchEvent(new Event(NAVIGATED));
  window.scrollTo(0, 0);
}

/** The current path and query, re-rendered on every navigation. */
export function useLocation(): { pathname: string; search: URLSearchParams } {
  const [href, setHref] = useState(() => location.pathname + location.search);
  useEffect(() => {
    const update = () => setHref(location.pathname + location.search);
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  const url = new URL(href, location.origin);
  return { pathname: url.pathname, search: url.searchParams };
}

/** An anchor that navigates inside the dashboard on a plain click and behaves as a link otherwise. */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const { onClick, ...rest } = props;
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (props.target && props.target !== '_self') return;
    event.preventDefault();
    navigate(props.href);
  };
  return <a {...rest} onClick={follow} />;
}

/** The dashboard's pages and the URL patterns that lead to them. */
export type Route =
  | { page: 'login' }
  | { page: 'workspaces' }
  | { page: 'create'; template: string | undefined }
  | { page: 'workspace'; owner: string; workspace: string }
  | { page: 'terminal'; owner: string; workspace: string; agent: string | undefined }
  | { page: 'templates' }
  | { page: 'template'; name: string }
  | { page: 'template-permissions'; name: string }
  | { page: 'template-new' }
  | { page: 'template-versions'; name: string }
  | { page: 'template-settings'; name: string }
  | { page: 'template-insights'; name: string }
  | { page: 'deployment' }
  | { page: 'idp-sync-preview'; user: string | undefined }
  | { page: 'groups' }
  | { page: 'group'; organization: string; name: string }
  | { page: 'external-auth'; provider: string }
  | { page: 'external-auth-settings' }
  | { page: 'audit' }
  | { page: 'connection-log' }
  | { page: 'notification-settings' }
  | { page: 'deployment-notifications' }
  | { page: 'deployment-settings' }
  | { page: 'health' }
  | { page: 'licenses' }
  | { page: 'workspace-build'; owner: string; workspace: string; buildNumber: string }
  | { page: 'workspace-settings'; owner: string; workspace: string; section: WorkspaceSettingsSection }
  | { page: 'users' }
  | { page: 'user-create' }
  | { page: 'organizations' }
  | { page: 'organization'; name: string }
  | { page: 'organization-members'; name: string }
  | { page: 'organization-roles'; name: string }
  | { page: 'template-version'; template: string; version: string }
  | { page: 'template-version-editor'; template: string; version: string }
  | { page: 'settings-account' }
  | { page: 'settings-security' }
  | { page: 'settings-appearance' }
  | { page: 'settings-tokens' }
  | { page: 'settings-ssh-keys' }
  | { page: 'settings-schedule' }
  | { page: 'not-found' };

/** The sections of a workspace's settings, each at `/@owner/name/settings/<section>` (general at `/settings`). */
export const WORKSPACE_SETTINGS_SECTIONS = ['general', 'parameters', 'schedule', 'version'] as const;
export type WorkspaceSettingsSection = (typeof WORKSPACE_SETTINGS_SECTIONS)[number];

/** Which page a path shows. */
export function matchRoute(pathname: string, search: URLSearchParams): Route {
  const parts = pathname
    .split('/')
    .filter((part) => part !== '')
    .map((part) => decodeURIComponent(part));
  const [first, second, third] = parts;
  if (parts.length === 0) return { page: 'workspaces' };
  if ((first === 'login' || first === 'setup') && parts.length === 1) return { page: 'login' };
  if (first === 'workspaces' && parts.length === 1) return { page: 'workspaces' };
  if (first === 'workspaces' && second === 'new' && parts.length === 2)
    return { page: 'create', template: search.get('template') ?? undefined };
  if (first === 'templates' && parts.length === 1) return { page: 'templates' };
  if (first === 'templates' && second === 'new' && parts.length === 2) return { page: 'template-new' };
  if (first === 'templates' && second && third === 'versions' && parts.length === 3) return { page: 'template-versions', name: second };
  if (first === 'templates' && second && third === 'settings' && parts.length === 3) return { page: 'template-settings', name: second };
  if (first === 'templates' && second && third === 'insights' && parts.length === 3) return { page: 'template-insights', name: second };
  if (first === 'templates' && second && parts.length === 2) return { page: 'template', name: second };
  if (first === 'templates' && second && third === 'workspace' && parts.length === 3) return { page: 'create', template: second };
  if (first === 'templates' && second && third === 'permissions' && parts.length === 3)
    return { page: 'template-permissions', name: second };
  if (first === 'deployment' && parts.length === 1) return { page: 'deployment' };
  if (first === 'deployment' && second === 'idp-sync' && parts.length === 2)
    return { page: 'idp-sync-preview', user: search.get('user') ?? undefined };
  if (first === 'groups' && parts.length === 1) return { page: 'groups' };
  if (first === 'groups' && second && third && parts.length === 3) return { page: 'group', organization: second, name: third };
  if (first === 'external-auth' && second && parts.length === 2) return { page: 'external-auth', provider: second };
  if (first === 'settings' && second === 'external-auth' && parts.length === 2) return { page: 'external-auth-settings' };
  if (first === 'audit' && parts.length === 1) return { page: 'audit' };
  if (first === 'connectionlog' && parts.length === 1) return { page: 'connection-log' };
  if (first === 'settings' && second === 'notifications' && parts.length === 2) return { page: 'notification-settings' };
  if (first === 'deployment' && second === 'notifications' && parts.length === 2) return { page: 'deployment-notifications' };
  if (first === 'deployment' && second === 'settings' && parts.length === 2) return { page: 'deployment-settings' };
  if (first === 'deployment' && second === 'health' && parts.length === 2) return { page: 'health' };
  if (first === 'deployment' && second === 'licenses' && parts.length === 2) return { page: 'licenses' };
  if (first === 'deployment' && second === 'users' && parts.length === 2) return { page: 'users' };
  if (first === 'deployment' && second === 'users' && third === 'new' && parts.length === 3) return { page: 'user-create' };
  if (first === 'organizations' && parts.length === 1) return { page: 'organizations' };
  if (first === 'organizations' && second && parts.length === 2) return { page: 'organization', name: second };
  if (first === 'organizations' && second && third === 'members' && parts.length === 3)
    return { page: 'organization-members', name: second };
  if (first === 'organizations' && second && third === 'roles' && parts.length === 3) return { page: 'organization-roles', name: second };
  if (first === 'templates' && second && third === 'versions' && parts[3] && parts.length === 4)
    return { page: 'template-version', template: second, version: parts[3] };
  if (first === 'templates' && second && third === 'versions' && parts[3] && parts[4] === 'edit' && parts.length === 5)
    return { page: 'template-version-editor', template: second, version: parts[3] };
  if (first === 'settings' && parts.length === 1) return { page: 'settings-account' };
  if (first === 'settings' && second === 'account' && parts.length === 2) return { page: 'settings-account' };
  if (first === 'settings' && second === 'security' && parts.length === 2) return { page: 'settings-security' };
  if (first === 'settings' && second === 'appearance' && parts.length === 2) return { page: 'settings-appearance' };
  if (first === 'settings' && second === 'tokens' && parts.length === 2) return { page: 'settings-tokens' };
  if (first === 'settings' && second === 'ssh-keys' && parts.length === 2) return { page: 'settings-ssh-keys' };
  if (first === 'settings' && second === 'schedule' && parts.length === 2) return { page: 'settings-schedule' };
  if (first?.startsWith('@') && first.length > 1 && second) {
    const owner = first.slice(1);
    if (parts.length === 2) return { page: 'workspace', owner, workspace: second };
    if (third === 'builds' && parts.length === 4 && /^[1-9][0-9]*$/.test(parts[3]!))
      return { page: 'workspace-build', owner, workspace: second, buildNumber: parts[3]! };
    if (third === 'settings' && parts.length === 3) return { page: 'workspace-settings', owner, workspace: second, section: 'general' };
    const section = WORKSPACE_SETTINGS_SECTIONS.find((candidate) => candidate !== 'general' && candidate === parts[3]);
    if (third === 'settings' && section && parts.length === 4) return { page: 'workspace-settings', owner, workspace: second, section };
    if (third === 'terminal' && parts.length === 3) {
      const dot = second.indexOf('.');
      return dot < 0
        ? { page: 'terminal', owner, workspace: second, agent: undefined }
        : { page: 'terminal', owner, workspace: second.slice(0, dot), agent: second.slice(dot + 1) };
    }
  }
  return { page: 'not-found' };
}

/** Whether a same-origin path is one of the dashboard's own pages (others are the server's: apps, API). */
export function isDashboardPath(path: string): boolean {
  const url = new URL(path, location.origin);
  return matchRoute(url.pathname, url.searchParams).page !== 'not-found';
}
