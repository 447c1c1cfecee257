// Where the dashboard sends users to link an external auth provider.

/** The dashboard page of provider `id`; `popup` when a page opened it in a window of its own. */
export function externalAuthPagePath(id: string, options: { popup?: boolean } = {}): string {
  return `/external-auth/${encodeURIComponent(id)}${options.popup ? '?popup=true' : ''}`;
}

/**
 * The URL that starts linking provider `id`: the server sends the browser to the provider's
 * sign-in and, once the provider answers, back to `redirect` (a path of this dashboard).
 */
export function linkStartUrl(id: string, redirect: string): string {
  return `/external-auth/${encodeURIComponent(id)}/callback?redirect=${encodeURIComponent(redirect)}`;
}

/** The message a linking window posts to the page that opened it once the link is made. */
export const LINKED_MESSAGE = 'cove:external-auth-linked';
