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

/** What a presented token is checked with. */
export interface PresentedToken {
  readonly token: string | undefined;
  readonly ipAddress: string;
  readonly now: Date;
}

/**
 * Resolves a presented token to its user and RBAC subject, or throws the 401 that says why not.
 * Runs as the authenticator (`SYSTEM_SUBJECTS.authenticator`) because nobody is known yet: that is
 * what it establishes.
 * Also keeps the key alive: usage is recorded at most hourly and, unless refresh is disabled, a key
 * used after its first hour gets its full lifetime back.
 */
export async function authenticate(store: AuthorizedStore, values: DeploymentValues, presented: PresentedToken): Promise<Authenticated> {
  return authenticateFromCache(store, values, presented) ?? authenticateFromDatabase(store, values, presented);
}

/**
 * {@link authenticate} past the cache's fast path: verifies the secret against its hash when the
 * session is new, and records what keeping the key alive asks for.
 */
export async function authenticateFromDatabase(
  store: AuthorizedStore,
  values: DeploymentValues,
  presented: PresentedToken,
): Promise<Authenticated> {
  const { ipAddress, now } = presented;
  const parsed = parsedToken(presented.token);
  const session = await store.sessions.get(parsed.id, now, { disableOwnerWorkspaceExec: values.disableOwnerWorkspaceExec });
  if (!session) throw new HttpProblem(401, SIGNED_OUT, { detail: 'API key is invalid.' });
  const verified = session.verifiedSecret !== undefined && sameSecret(session.verifiedSecret, parsed.secret);
  if (!verified && !secretMatches(parsed.secret, session.apiKey.hashed_secret)) {
    throw new HttpProblem(401, SIGNED_OUT, { detail: 'API key secret is invalid.' });
  }
  const { expiresAtMs } = keyTimes(session.apiKey);
  refuseExpired(session.apiKey, expiresAtMs, now);
  let user = session.user;
  refuseSuspended(user);
  if (user.status === 'dormant') {
    await store.users.recordSeen(user.id, { status: 'active' });
    user = { ...user, status: 'active' };
  }
  let apiKey = session.apiKey;
  const changes = keepAliveChanges(values, apiKey, ipAddress, now);
  if (changes) {
    await store.sessions.recordUse(apiKey, changes);
    apiKey = { ...apiKey, ...changes };
  }
  if (apiKey.last_used !== session.apiKey.last_used) {
    await store.users.recordSeen(user.id, { last_seen_at: apiKey.last_used });
    user = { ...user, last_seen_at: apiKey.last_used };
  }
  const result = { user, apiKey, subject: session.subject };
  if (!verified || user !== session.user || apiKey !== session.apiKey) {
    store.sessions.remember({ ...result, verifiedSecret: parsed.secret }, now);
  }
  return result;
}

/**
 * The caller from the session cache alone, without waiting, or undefined when the full path must
 * run: the key is not cached, its secret was not verified yet, or there is something to record
 * (a dormant user, an hourly use, a refreshed expiry). Throws the same 401s as {@link authenticate}.
 * Most requests present a key a recent request verified, and this is all they cost.
 */
export function authenticateFromCache(
  store: AuthorizedStore,
  values: DeploymentValues,
  presented: PresentedToken,
): Authenticated | undefined {
  const { now } = presented;
  const parsed = parsedToken(presented.token);
  const session = store.sessions.getCached(parsed.id, now);
  if (session?.verifiedSecret === undefined || !sameSecret(session.verifiedSecret, parsed.secret)) return undefined;
  const { apiKey, user } = session;
  const times = keyTimes(apiKey);
  refuseExpired(apiKey, times.expiresAtMs, now);
  refuseSuspended(user);
  if (user.status === 'dormant' || keepAliveDue(values, times, now)) return undefined;
  return { user, apiKey, subject: session.subject };
}

function parsedToken(token: string | undefined): { readonly id: string; readonly secret: string } {
  if (!token) {
    throw new HttpProblem(401, SIGNED_OUT, {
      detail:
        'Provide a session token in the "Service-Session-Token" header, the "service_session_token" cookie or query parameter. Run "cove login" to get one.',
    });
  }
  const parsed = parseToken(token);
  if (!parsed.ok) throw new HttpProblem(401, SIGNED_OUT, { detail: parsed.detail });
  return parsed;
}

function refuseExpired(apiKey: ApiKeyRow, expiresAtMs: number, now: Date): void {
  if (expiresAtMs <= now.getTime()) {
    throw new HttpProblem(401, SIGNED_OUT, { detail: `API key expired at "${apiKey.expires_at}".` });
  }
}

function refuseSuspended(user: UserRow): void {
  if (user.status === 'suspended') {
    throw new HttpProblem(401, `User is not active (status = "${user.status}"). Contact an admin to reactivate your account.`);
  }
}

/** A key's times as milliseconds, parsed once per loaded row: rows are never changed in place. */
interface KeyTimes {
  readonly expiresAtMs: number;
  readonly lastUsedMs: number;
  readonly lifetimeMs: number;
}

const keyTimesOfRow = new WeakMap<ApiKeyRow, KeyTimes>();

function keyTimes(apiKey: ApiKeyRow): KeyTimes {
  let times = keyTimesOfRow.get(apiKey);
  if (!times) {
    times = {
      expiresAtMs: Date.parse(apiKey.expires_at),
      lastUsedMs: Date.parse(apiKey.last_used),
      lifetimeMs: Number(apiKey.lifetime_seconds) * 1000,
    };
    keyTimesOfRow.set(apiKey, times);
  }
  return times;
}

/** Compares a verified secret with a presented one in time that depends only on their length, fixed for valid tokens. */
function sameSecret(known: string, presented: string): boolean {
  return known.length === presented.length && timingSafeEqual(Buffer.from(known), Buffer.from(presented));
}

/** What to record of a key's use: when and where at most hourly, and a refreshed expiry; undefined for nothing. */
function keepAliveChanges(values: DeploymentValues, apiKey: ApiKeyRow, ipAddress: string, now: Date): Partial<ApiKeyRow> | undefined {
  const times = keyTimes(apiKey);
  if (!keepAliveDue(values, times, now)) return undefined;
  const changes: Partial<ApiKeyRow> = {};
  if (usedDue(times, now)) {
    changes.last_used = now.toISOString();
    changes.ip_address = ipAddress;
  }
  if (refreshDue(values, times, now)) changes.expires_at = new Date(now.getTime() + times.lifetimeMs).toISOString();
  changes.updated_at = now.toISOString();
  return changes;
}

function keepAliveDue(values: DeploymentValues, times: KeyTimes, now: Date): boolean {
  return usedDue(times, now) || refreshDue(values, times, now);
}

/** Use is recorded at most hourly. */
function usedDue(times: KeyTimes, now: Date): boolean {
  return now.getTime() - times.lastUsedMs > HOUR_MS;
}

/** A key used after its first hour gets its full lifetime back, unless refresh is disabled. */
function refreshDue(values: DeploymentValues, times: KeyTimes, now: Date): boolean {
  return !values.disableSessionExpiryRefresh && times.expiresAtMs - now.getTime() <= times.lifetimeMs - HOUR_MS;
}
