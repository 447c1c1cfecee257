import { HttpProblem } from '../lib/errors.js';

/** A parsed `q` of `GET /workspaces`. */
export interface WorkspaceSearch {
  readonly owner?: string;
  readonly template?: string;
  readonly name?: string;
  readonly status?: string;
  readonly outdated?: boolean;
  readonly dormant?: boolean;
  readonly hasAgent?: string;
  readonly shared?: boolean;
}

const KEYS = new Set(['owner', 'template', 'name', 'status', 'outdated', 'dormant', 'has-agent', 'shared']);
const STATUSES = new Set([
  'pending',
  'starting',
  'running',
  'stopping',
  'stopped',
  'deleting',
  'deleted',
  'canceling',
  'canceled',
  'failed',
]);
const AGENT_STATUSES = new Set(['connecting', 'connected', 'disconnected', 'timeout']);

/**
 * Parses `owner:me template:docker status:running outdated:true dormant:false has-agent:connected shared:true
 * dev`, the template search's syntax: lowercased, quotes group words, free text matches names.
 */
export function parseWorkspaceSearch(q: string | undefined, callerUsername: string): WorkspaceSearch {
  const found: Record<string, string> = {};
  const words: string[] = [];
  for (const token of (q ?? '').toLowerCase().match(/(?:[^\s"]+|"[^"]*")+/g) ?? []) {
    const clean = token.replace(/"/g, '');
    const colon = clean.indexOf(':');
    if (colon < 0) {
      words.push(clean);
      continue;
    }
    const key = clean.slice(0, colon);
    const value = clean.slice(colon + 1);
    if (!KEYS.has(key)) throw invalid(`Query param "${key}" is not a valid query param`);
    if (value === '') throw invalid(`Query element "${clean}" has no value`);
    found[key] = value;
  }
  const bool = (key: string): boolean | undefined => {
    const value = found[key];
    if (value === undefined) return undefined;
    if (value !== 'true' && value !== 'false') throw invalid(`Query param "${key}" must be a valid boolean`);
    return value === 'true';
  };
  const status = found['status'];
  if (status !== undefined && !STATUSES.has(status)) throw invalid(`Query param "status" has invalid value: "${status}"`);
  const hasAgent = found['has-agent'];
  if (hasAgent !== undefined && !AGENT_STATUSES.has(hasAgent)) throw invalid(`Query param "has-agent" has invalid value: "${hasAgent}"`);
  const name = [found['name'], ...words].filter(Boolean).join(' ');
  const owner = found['owner'] === 'me' ? callerUsername : found['owner'];
  const outdated = bool('outdated');
  const dormant = bool('dormant');
  const shared = bool('shared');
  return {
    ...(owner ? { owner } : {}),
    ...(found['template'] ? { template: found['template'] } : {}),
    ...(name ? { name } : {}),
    ...(status ? { status } : {}),
    ...(outdated === undefined ? {} : { outdated }),
    ...(dormant === undefined ? {} : { dormant }),
    ...(hasAgent ? { hasAgent } : {}),
    ...(shared === undefined ? {} : { shared }),
  };
}

function invalid(detail: string): HttpProblem {
  return new HttpProblem(400, 'Invalid workspace search query.', { validations: [{ field: 'q', detail }] });
}
