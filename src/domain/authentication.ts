import { timingSafeEqual } from 'node:crypto';
import { HttpProblem } from '../lib/errors.js';
import type { Subject } from '../rbac/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { ApiKeyRow, UserRow } from '../store/rows.js';
import { parseToken, secretMatches } from './api-tokens.js';
import type { DeploymentValues } from './deployment-options.js';

const SIGNED_OUT = 'You are signed out or your session has expired. Please sign in again to continue.';
const HOUR_MS = 3_600_000;

/** Who is calling, with the key they used. */
export interface Authenticated {
  readonly user: UserRow;
  readonly apiKey: ApiKeyRow;
  readonly subject: Subject;
}

/**
 * Resolves a presented token to its user and RBAC subject, or throws the 401 that says why not.
 * Runs as the authenticator (`SYSTEM_SUBJECTS.authenticator`) because nobody is known yet: that is
 * what it establishes.
 * Also keeps the key alive: usage is recorded at most hourly and, unless refresh is disabled, a key
 * used after its first hour gets its full lifetime back.
 */
export async function authenticate(
  store: AuthorizedStore,
  values: DeploymentValues,
  presented: { readonly token: string | undefined; readonly ipAddress: string; readonly now: Date },
): Promise<Authenticated> {
  const { token, ipAddress, now } = presented;
  if (!token) {
    throw new HttpProblem(401, SIGNED_OUT, {
      detail:
        'Provide a session token in the "Service-Session-Token" header, the "service_session_token" cookie or query parameter. Run "cove login" to get one.',
    });
  }
  const parsed = parseToken(token);
  if (!parsed.ok) throw new HttpProblem(401, SIGNED_OUT, { detail: parsed.detail });

  // A cached session costs no wait at all: with nothing to record, nothing below awaits.
  const session =
    store.getCachedSession(parsed.id, now) ??
    (await store.getSession(parsed.id, now, { disableOwnerWorkspaceExec: values.disableOwnerWorkspaceExec }));
  if (!session) throw new HttpProblem(401, SIGNED_OUT, { detail: 'API key is invalid.' });
  const verified = session.verifiedSecret !== undefined && sameSecret(session.verifiedSecret, parsed.secret);
  if (!verified && !secretMatches(parsed.secret, session.apiKey.hashed_secret)) {
    throw new HttpProblem(401, SIGNED_OUT, { detail: 'API key secret is invalid.' });
  }
  const expiresAtMs = Date.parse(session.apiKey.expires_at);
  if (expiresAtMs <= now.getTime()) {
    throw new HttpProblem(401, SIGNED_OUT, { detail: `API key expired at "${session.apiKey.expires_at}".` });
  }
  let user = session.user;
  if (user.status === 'suspended') {
    throw new HttpProblem(401, `User is not active (status = "${user.status}"). Contact an admin to reactivate your account.`);
  }
  if (user.status === 'dormant') {
    await store.recordUserSeen(user.id, { status: 'active' });
    user = { ...user, status: 'active' };
  }
  let apiKey = session.apiKey;
  const changes = keepAliveChanges(values, apiKey, expiresAtMs, ipAddress, now);
  if (changes) {
    await store.recordApiKeyUse(apiKey, changes);
    apiKey = { ...apiKey, ...changes };
  }
  if (apiKey.last_used !== session.apiKey.last_used) {
    await store.recordUserSeen(user.id, { last_seen_at: apiKey.last_used });
    user = { ...user, last_seen_at: apiKey.last_used };
  }
  const result = { user, apiKey, subject: session.subject };
  if (!verified || user !== session.user || apiKey !== session.apiKey) {
    store.rememberSession({ ...result, verifiedSecret: parsed.secret }, now);
  }
  return result;
}

function sameSecret(known: string, presented: string): boolean {
  return known.length === presented.length && timingSafeEqual(Buffer.from(known), Buffer.from(presented));
}

/** What to record of a key's use: when and where at most hourly, and a refreshed expiry; undefined for nothing. */
function keepAliveChanges(
  values: DeploymentValues,
  apiKey: ApiKeyRow,
  expiresAtMs: number,
  ipAddress: string,
  now: Date,
): Partial<ApiKeyRow> | undefined {
  const changes: Partial<ApiKeyRow> = {};
  if (now.getTime() - Date.parse(apiKey.last_used) > HOUR_MS) {
    changes.last_used = now.toISOString();
    changes.ip_address = ipAddress;
  }
  const lifetimeMs = Number(apiKey.lifetime_seconds) * 1000;
  if (!values.disableSessionExpiryRefresh && expiresAtMs - now.getTime() <= lifetimeMs - HOUR_MS) {
    changes.expires_at = new Date(now.getTime() + lifetimeMs).toISOString();
  }
  if (Object.keys(changes).length === 0) return undefined;
  changes.updated_at = now.toISOString();
  return changes;
}
