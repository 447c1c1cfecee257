import type { FastifyRequest } from 'fastify';

/** Where the dashboard signs a browser in; it goes on to its `redirect` parameter afterwards. */
export const SIGN_IN_PAGE = '/login';

/**
 * Whether a request is a browser loading a page, which can be sent to the sign-in page and back:
 * a GET or HEAD that asks for HTML and is no WebSocket. API clients do not ask for HTML and keep
 * their 401 in the error shape.
 */
export function isPageLoad(request: FastifyRequest): boolean {
  const method = request.raw.method ?? 'GET';
  if ((method !== 'GET' && method !== 'HEAD') || request.headers.upgrade !== undefined) return false;
  const accept = request.headers.accept;
  return typeof accept === 'string' && accept.toLowerCase().includes('text/html');
}

/**
 * The sign-in page of the deployment at `accessUrl`, returning to `path` (with its query) there
 * afterwards. The return address is a path on the access URL, where the session cookie the sign-in
 * sets applies; a path is also what the sign-in providers' `redirect` takes (`safeRedirect`), so
 * it survives an OIDC or GitHub sign-in started from that page.
 */
export function signInLocation(accessUrl: string, path: string): string {
  return `${accessUrl.replace(/\/+$/, '')}${SIGN_IN_PAGE}?redirect=${encodeURIComponent(path)}`;
}
