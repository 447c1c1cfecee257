import { HttpProblem } from '../lib/errors.js';
import type { AuditLogFilter } from '../store/rows.js';

/** The words the audit search accepts for its enumerated keys (the wire's lists, handed in by the route). */
export interface AuditSearchVocabulary {
  readonly resourceTypes: readonly string[];
  readonly actions: readonly string[];
}

/** Why a build ran, as builds record it and the reference's `build_reason:` accepts. */
const BUILD_REASONS: ReadonlySet<string> = new Set([
  'initiator',
  'autostart',
  'autostop',
  'autolock',
  'dormancy',
  'failedstop',
  'autodelete',
  'dashboard',
  'cli',
  'ssh_connection',
  'vscode_connection',
  'jetbrains_connection',
]);

const KEYS: ReadonlySet<string> = new Set([
  'resource_type',
  'resource_id',
  'resource_target',
  'request_id',
  'action',
  'username',
  'email',
  'date_from',
  'date_to',
  'build_reason',
  'organization',
]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Parses the `q` of `GET /audit`: `resource_type:template action:delete username:alice email:
 * resource_id: request_id: resource_target: date_from:2026-01-02 date_to:2026-01-31 (inclusive,
 * UTC days) build_reason:autostart organization:<name or id>`, lowercased; a bare word is a
 * username. `callerId` stands for `username:me`. An unknown key or a bad value is a 400 whose
 * validation names the key.
 */
export function parseAuditSearch(q: string | undefined, vocabulary: AuditSearchVocabulary, callerId: string): AuditLogFilter {
  const found = new Map<string, string>();
  const problems: { field: string; detail: string }[] = [];
  for (const token of (q ?? '').toLowerCase().match(/(?:[^\s"]+|"[^"]*")+/g) ?? []) {
    const clean = token.replace(/"/g, '');
    const colon = clean.indexOf(':');
    const key = colon < 0 ? 'username' : clean.slice(0, colon);
    const value = colon < 0 ? clean : clean.slice(colon + 1);
    if (!KEYS.has(key)) {
      problems.push({ field: key, detail: `Query param "${key}" is not a valid query param` });
      continue;
    }
    if (value === '') {
      problems.push({ field: key, detail: `Query element "${clean}" has no value` });
      continue;
    }
    if (found.has(key)) {
      problems.push({ field: key, detail: `Query param "${key}" provided more than once` });
      continue;
    }
    found.set(key, value);
  }
  const oneOf = (key: string, allowed: ReadonlySet<string> | readonly string[]): string | undefined => {
    const value = found.get(key);
    const ok = value === undefined || ('has' in allowed ? allowed.has(value) : allowed.includes(value));
    if (!ok) problems.push({ field: key, detail: `Query param "${key}" has invalid value: "${value}"` });
    return ok ? value : undefined;
  };
  const uuid = (key: string): string | undefined => {
    const value = found.get(key);
    if (value !== undefined && !UUID.test(value)) problems.push({ field: key, detail: `Query param "${key}" must be a valid uuid` });
    return value;
  };
  const day = (key: string): number | undefined => {
    const value = found.get(key);
    if (value === undefined) return undefined;
    const match = DATE.exec(value);
    const time = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
    // Date.UTC rolls 2026-02-30 over into March: a day that does not exist is refused.
    if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value) {
      problems.push({ field: key, detail: `Query param "${key}" must be a valid date format (2006-01-02)` });
      return undefined;
    }
    return time;
  };
  const resourceType = oneOf('resource_type', vocabulary.resourceTypes);
  const action = oneOf('action', vocabulary.actions);
  const buildReason = oneOf('build_reason', BUILD_REASONS);
  const resourceId = uuid('resource_id');
  const requestId = found.get('request_id');
  const from = day('date_from');
  const to = day('date_to');
  if (problems.length > 0) throw new HttpProblem(400, 'Invalid audit search query.', { validations: problems });
  const username = found.get('username');
  return {
    resourceType,
    action,
    buildReason,
    resourceId,
    requestId,
    resourceTarget: found.get('resource_target'),
    ...(username === 'me' ? { userId: callerId } : { username }),
    email: found.get('email'),
    organization: found.get('organization'),
    dateFrom: from === undefined ? undefined : new Date(from).toISOString(),
    // Inclusive: every entry of that day, whatever its time.
    dateBefore: to === undefined ? undefined : new Date(to + DAY_MS).toISOString(),
  };
}
