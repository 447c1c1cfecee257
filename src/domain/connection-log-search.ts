import { HttpProblem, type FieldValidation } from '../lib/errors.js';
import { isUuid } from '../lib/random.js';
import type { ConnectionType } from '../sdk/wire/connection-logs.js';
import type { ConnectionLogFilter } from '../store/rows.js';

/** A parsed `q` of `GET /connectionlog`: the filter, and the organization still to be found by name or id. */
export interface ConnectionLogSearch {
  readonly filter: ConnectionLogFilter;
  readonly organization?: string | undefined;
}

/** Every connection type, kept complete by the compiler (the domain takes only types from the SDK). */
const TYPES: Readonly<Record<ConnectionType, true>> = {
  jetbrains: true,
  port_forwarding: true,
  reconnecting_pty: true,
  ssh: true,
  vscode: true,
  workspace_app: true,
};

const KEYS = new Set([
  'organization',
  'workspace_owner',
  'workspace_owner_email',
  'workspace_id',
  'connection_id',
  'type',
  'username',
  'user_email',
  'connected_after',
  'connected_before',
  'status',
]);

/**
 * Parses `type:ssh username:alice status:ongoing connected_after:2026-01-01T00:00:00Z`. As the
 * reference, the search is lowercased, every term is `key:value`, and `me` as a user or workspace
 * owner is the caller. Anything it cannot use is a 400 naming each bad term.
 */
export function parseConnectionLogSearch(q: string | undefined, callerId: string): ConnectionLogSearch {
  const values = new Map<string, string>();
  const validations: FieldValidation[] = [];
  for (const term of (q ?? '').toLowerCase().trim().split(/\s+/).filter(Boolean)) {
    const colon = term.indexOf(':');
    const key = colon > 0 ? term.slice(0, colon) : '';
    const value = colon > 0 ? term.slice(colon + 1).replace(/^"(.*)"$/, '$1') : '';
    if (colon <= 0) validations.push({ field: 'q', detail: `"${term}" is not a filter: write key:value (for example type:ssh)` });
    else if (!KEYS.has(key)) validations.push({ field: key, detail: `Query param "${key}" is not a valid query param` });
    else if (value === '') validations.push({ field: key, detail: `Query param "${key}" has no value` });
    else if (values.has(key)) validations.push({ field: key, detail: `Query param "${key}" is given more than once` });
    else values.set(key, value);
  }
  const time = (key: string): string | undefined => {
    const value = values.get(key);
    if (value === undefined) return undefined;
    const parsed = /^\d{4}-\d{2}-\d{2}(t\d{2}:\d{2}(:\d{2}(\.\d+)?)?(z|[+-]\d{2}:\d{2})?)?$/.test(value)
      ? new Date(value.toUpperCase())
      : undefined;
    if (parsed === undefined || Number.isNaN(parsed.getTime())) {
      validations.push({ field: key, detail: `Query param "${key}" must be a valid RFC 3339 time, as 2026-01-02T15:04:05Z` });
      return undefined;
    }
    return parsed.toISOString();
  };
  const oneOf = <T extends string>(key: string, allowed: readonly T[]): T | undefined => {
    const value = values.get(key);
    if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined;
    validations.push({ field: key, detail: `Query param "${key}" has invalid value "${value}": use one of ${allowed.join(', ')}` });
    return undefined;
  };
  const uuid = (key: string): string | undefined => {
    const value = values.get(key);
    if (value === undefined || isUuid(value)) return value;
    validations.push({ field: key, detail: `Query param "${key}" must be a valid UUID` });
    return undefined;
  };
  const username = values.get('username');
  const owner = values.get('workspace_owner');
  const filter: ConnectionLogFilter = {
    workspaceOwner: owner === 'me' ? undefined : owner,
    workspaceOwnerId: owner === 'me' ? callerId : undefined,
    workspaceOwnerEmail: values.get('workspace_owner_email'),
    workspaceId: uuid('workspace_id'),
    connectionId: uuid('connection_id'),
    type: oneOf('type', Object.keys(TYPES) as ConnectionType[]),
    username: username === 'me' ? undefined : username,
    userId: username === 'me' ? callerId : undefined,
    userEmail: values.get('user_email'),
    connectedAfter: time('connected_after'),
    connectedBefore: time('connected_before'),
    status: oneOf('status', ['ongoing', 'completed'] as const),
  };
  if (validations.length > 0) throw new HttpProblem(400, 'Invalid connection search query.', { validations });
  return { filter, organization: values.get('organization') };
}
