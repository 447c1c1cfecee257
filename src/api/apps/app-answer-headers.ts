import { CONVERT_LOGIN_COOKIE } from '../../domain/convert-login.js';
import { SIGN_IN_STATE_COOKIE } from '../../domain/sign-in-state.js';
import { SESSION_COOKIE } from '../session-token.js';
import { APP_SESSION_COOKIE } from './app-session-cookie.js';

/**
 * Every cookie the daemon itself sets. An app never sees them in its requests, and can never set
 * or clear them with its answers: a path app shares the dashboard's origin, and a subdomain app
 * can aim a cookie at the parent domain (`Domain=`), so either could otherwise plant a session of
 * its author's choosing on a visitor, or sign them out. A unit test checks that every cookie name
 * the daemon's code declares is listed here.
 */
export const COVE_COOKIES: readonly string[] = [SESSION_COOKIE, APP_SESSION_COOKIE, CONVERT_LOGIN_COOKIE, SIGN_IN_STATE_COOKIE];

const COVE_COOKIES_LOWER = COVE_COOKIES.map((name) => name.toLowerCase());

/**
 * An app's answer headers (a flat raw list, `[name, value, ...]`) as they may reach the caller:
 * without a `Set-Cookie` for one of the daemon's cookies, and without `Clear-Site-Data` that would
 * clear the dashboard's data. For a path app that header goes entirely (the origin, its storage
 * and cache are the dashboard's); for a subdomain app only its `cookies` and `*` directives go,
 * since cookies are cleared for the whole registrable domain, the dashboard's included.
 */
export function appAnswerHeaders(raw: readonly string[], pathApp: boolean): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    let value = raw[i + 1] ?? '';
    const lower = name.toLowerCase();
    if (lower === 'set-cookie' && setsCoveCookie(value)) continue;
    if (lower === 'clear-site-data') {
      if (pathApp) continue;
      value = withoutCookieClearing(value);
      if (value === '') continue;
    }
    kept.push(name, value);
  }
  return kept;
}

/**
 * Whether a `Set-Cookie` value names one of the daemon's cookies. Read as browsers read it (the
 * name is what precedes the first `=` of the part before the first `;`, trimmed), compared without
 * regard to case, and also caught when the name is left empty and the value spells one out
 * (`=service_session_token=...`), which some cookie parsers take as that name.
 */
export function setsCoveCookie(value: string): boolean {
  const pair = (value.split(';')[0] ?? '').trim().toLowerCase();
  const at = pair.indexOf('=');
  const name = at < 0 ? '' : pair.slice(0, at).trim();
  if (COVE_COOKIES_LOWER.includes(name)) return true;
  if (name !== '') return false;
  const unnamed = (at < 0 ? pair : pair.slice(at + 1)).trim();
  return COVE_COOKIES_LOWER.some(
    (cookie) => unnamed === cookie || (unnamed.startsWith(cookie) && /^\s*=/.test(unnamed.slice(cookie.length))),
  );
}

/** A `Clear-Site-Data` value without the directives that clear cookies; '' when nothing is left. */
function withoutCookieClearing(value: string): string {
  return value
    .split(',')
    .map((directive) => directive.trim())
    .filter((directive) => {
      const bare = directive.replace(/^"|"$/g, '').toLowerCase();
      return directive !== '' && bare !== 'cookies' && bare !== '*';
    })
    .join(', ');
}
