import { ConflictError, HttpProblem } from '../lib/errors.js';
import { formatDuration, nsToMs } from '../lib/duration.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { UserRow } from '../store/rows.js';
import { parseStringArray } from '../store/json-column.js';
import type { DeploymentValues } from './deployment-options.js';
import { newApiKey } from './sessions.js';

const ADJECTIVES = [
  'brave',
  'calm',
  'eager',
  'fond',
  'gentle',
  'jolly',
  'keen',
  'lucid',
  'merry',
  'nimble',
  'quiet',
  'swift',
  'tidy',
  'vivid',
  'witty',
  'zesty',
];
const SURNAMES = [
  'hopper',
  'lovelace',
  'turing',
  'noether',
  'curie',
  'ritchie',
  'thompson',
  'liskov',
  'knuth',
  'dijkstra',
  'hamilton',
  'torvalds',
  'wirth',
  'kay',
  'pike',
  'lamport',
];

/** The longest lifetime `user` may give a token: owners have their own, usually shorter, cap. */
export function maxTokenLifetimeMs(values: DeploymentValues, user: UserRow): number {
  return parseStringArray(user.rbac_roles).includes('owner') ? values.maxAdminTokenLifetimeMs : values.maxTokenLifetimeMs;
}

/**
 * Creates a session key for `owner`, as signing in with a password would: the login type is
 * `password` and the lifetime the deployment's session duration. The CLI asks for one to keep
 * instead of the session it signed in with. Returns the token string.
 */
export async function createSessionKey(
  store: AuthorizedStore,
  values: DeploymentValues,
  owner: UserRow,
  ipAddress: string,
  now: Date,
): Promise<string> {
  const key = newApiKey({
    userId: owner.id,
    loginType: 'password',
    scope: 'all',
    lifetimeMs: values.sessionDurationMs,
    tokenName: '',
    ipAddress,
    now,
  });
  await store.tokens.insert(key.row);
  return key.token;
}

/** The body of a token request, with `lifetime` in nanoseconds as on the wire. */
export interface TokenRequest {
  readonly token_name?: string | undefined;
  readonly lifetime?: number | undefined;
  readonly scope?: 'all' | 'application_connect' | undefined;
}

/** Creates a named API token for `owner`, within the lifetime rules. Returns the token string. */
export async function createToken(
  store: AuthorizedStore,
  values: DeploymentValues,
  owner: UserRow,
  request: TokenRequest,
  ipAddress: string,
  now: Date,
): Promise<string> {
  const lifetimeMs = tokenLifetimeMs(values, owner, request.lifetime);
  const tokenName = request.token_name?.trim() || randomTokenName();
  const key = newApiKey({
    userId: owner.id,
    loginType: 'token',
    scope: request.scope ?? 'all',
    lifetimeMs,
    tokenName,
    ipAddress,
    now,
  });
  try {
    await store.tokens.insert(key.row);
  } catch (error) {
    if (error instanceof ConflictError) {
      throw new HttpProblem(409, `A token with name "${tokenName}" already exists.`, {
        validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      });
    }
    throw error;
  }
  return key.token;
}

function tokenLifetimeMs(values: DeploymentValues, owner: UserRow, lifetimeNs: number | undefined): number {
  if (lifetimeNs === undefined || lifetimeNs === 0) return values.defaultTokenLifetimeMs;
  if (lifetimeNs < 0) {
    throw new HttpProblem(400, 'Failed to validate create API key request.', {
      detail: 'lifetime must be positive number greater than 0',
      validations: [{ field: 'lifetime', detail: 'lifetime must be positive number greater than 0' }],
    });
  }
  const max = maxTokenLifetimeMs(values, owner);
  const lifetimeMs = nsToMs(lifetimeNs);
  if (lifetimeMs > max) {
    throw new HttpProblem(400, 'Failed to validate create API key request.', {
      detail: `lifetime must be less than ${formatDuration(max)}`,
      validations: [{ field: 'lifetime', detail: `lifetime must be less than ${formatDuration(max)}` }],
    });
  }
  return lifetimeMs;
}

function randomTokenName(): string {
  const pick = (words: readonly string[]) => words[Math.floor(Math.random() * words.length)] ?? words[0];
  return `${pick(ADJECTIVES)}_${pick(SURNAMES)}${Math.floor(Math.random() * 100)}`;
}
