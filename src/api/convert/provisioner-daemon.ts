import { DAEMON_STALE_MS } from '../../domain/provisioner-job-views.js';
import type { ProvisionerDaemon, ProvisionerDaemonJob } from '../../sdk/wire/index.js';
import { parseJson, parseStringArray } from '../../store/json-column.js';
import type { ProvisionerDaemonRow, ProvisionerDaemonWithState } from '../../store/rows.js';

/** The key id the reference reserves for the daemons its server runs itself. */
const BUILT_IN_KEY_ID = '00000000-0000-0000-0000-000000000001';

/**
 * A provisioner daemon's row as the API shows it. `busy` says whether it holds a running job;
 * a daemon not seen for a while is offline whatever it holds.
 */
export function toWireProvisionerDaemon(
  row: ProvisionerDaemonRow & Partial<ProvisionerDaemonWithState> & { readonly key_name: string | null },
  now: Date,
  jobs: ReadonlyMap<string, ProvisionerDaemonJob> = new Map(),
): ProvisionerDaemon {
  const online = row.last_seen_at !== null && now.getTime() - Date.parse(row.last_seen_at) < DAEMON_STALE_MS;
  return {
    id: row.id,
    organization_id: row.organization_id,
    ...(row.key_id ? { key_id: row.key_id, key_name: row.key_name ?? '' } : { key_id: BUILT_IN_KEY_ID, key_name: 'built-in' }),
    created_at: row.created_at,
    ...(row.last_seen_at ? { last_seen_at: row.last_seen_at } : {}),
    name: row.name,
    version: row.version,
    api_version: row.api_version,
    provisioners: [...parseStringArray(row.provisioners)],
    tags: parseJson<Record<string, string>>(row.tags, {}),
    status: !online ? 'offline' : row.busy === 1 ? 'busy' : 'idle',
    current_job: (row.current_job_id && jobs.get(row.current_job_id)) || null,
    previous_job: (row.previous_job_id && jobs.get(row.previous_job_id)) || null,
  };
}
