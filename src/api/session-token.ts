import type { FastifyReply, FastifyRequest } from 'fastify';

/** Header that carries a session or API token. */
export const SESSION_HEADER = 'service-session-token';
/** Cookie and query parameter that carry it where a header cannot (browsers, WebSockets). */
export const SESSION_COOKIE = 'service_session_token';

/** The token a request presents: header first, then cookie, then query parameter. */
export function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers[SESSION_HEADER];
  if (typeof header === 'string' && header !== '') return header;
  const cookie = readCookie(request.headers.cookie, SESSION_COOKIE);
  if (cookie) return cookie;
  // Read from the URL itself: this runs before (and for every) route, whatever its query schema.
  const query = new URLSearchParams(request.url.split('?')[1] ?? '').get(SESSION_COOKIE);
  return query ? query : undefined;
}

/**
 * Whether the token presentedToken() picks is the session cookie's: the one a browser attaches on
 * its own to whatever page's request, which is why such requests must prove where they came from.
 */
export function presentedByCookie(request: FastifyRequest): boolean {
  const header = request.headers[SESSION_HEADER];
  if (typeof header === 'string' && header !== '') return false;
  return Boolean(readCookie(request.headers.cookie, SESSION_COOKIE));
}

/** One cookie of a Cookie header, decoded. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key !== name) continue;
    const value = rest.join('=');
    // A value that is not valid percent-encoding is no token anyone issued: kept as sent, it is
    // refused as a bad token (401) rather than failing the request (500).
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}

/** Sets the session cookie for browsers; the CLI uses the header instead. */
export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean): void {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])];
  reply.header('set-cookie', `${SESSION_COOKIE}=${token}; ${attributes.join('; ')}`);
}

/** Expires the session cookie. */
export function clearSessionCookie(reply: FastifyReply): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=-1`);
}
