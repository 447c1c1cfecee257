import { DAEMON_STALE_MS } from '../../domain/provisioner-job-views.js';
import type { ProvisionerDaemon } from '../../sdk/wire/index.js';
import { parseJson, parseStringArray } from '../../store/json-column.js';
import type { ProvisionerDaemonRow } from '../../store/rows.js';

/**
 * A provisioner daemon's row as the API shows it. `busy` says whether it holds a running job;
 * a daemon not seen for a while is offline whatever it holds.
 */
export function toWireProvisionerDaemon(
  row: ProvisionerDaemonRow & { readonly key_name: string | null; readonly busy?: number },
  now: Date,
): ProvisionerDaemon {
  const online = row.last_seen_at !== null && now.getTime() - Date.parse(row.last_seen_at) < DAEMON_STALE_MS;
  return {
    id: row.id,
    organization_id: row.organization_id,
    ...(row.key_id ? { key_id: row.key_id, key_name: row.key_name ?? '' } : { key_name: 'built-in' }),
    created_at: row.created_at,
    ...(row.last_seen_at ? { last_seen_at: row.last_seen_at } : {}),
    name: row.name,
    version: row.version,
    api_version: row.api_version,
    provisioners: [...parseStringArray(row.provisioners)],
    tags: parseJson<Record<string, string>>(row.tags, {}),
    status: !online ? 'offline' : row.busy === 1 ? 'busy' : 'idle',
  };
}
