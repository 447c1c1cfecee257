import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { parseJson, parseStringArray } from '../store/json-column.js';
import { listQueuedJobs, type ProvisionerJobRow } from '../store/queries/provisioner-jobs.js';
import type { JobInput } from './provisioner-job-protocol.js';
import { jobStatus, type JobStatus } from './provisioner-job-status.js';
import { daemonTakesJob, type ProvisionerTags } from './provisioner-tags.js';

/** A daemon that has not been heard from for this long is offline. */
export const DAEMON_STALE_MS = 90_000;

/** A job with what its answers show besides its row. */
export interface JobView {
  readonly row: ProvisionerJobRow;
  readonly status: JobStatus;
  readonly tags: Record<string, string>;
  readonly input: JobInput;
  readonly queuePosition: number;
  readonly queueSize: number;
  readonly workerName: string | undefined;
  readonly availableWorkers: readonly string[];
  readonly metadata: {
    readonly template_version_name: string;
    readonly template_id: string;
    readonly template_name: string;
    readonly template_display_name: string;
    readonly template_icon: string;
  };
}

interface DaemonRow {
  readonly id: string;
  readonly name: string;
  readonly organization_id: string;
  readonly provisioners: string;
  readonly tags: string;
  readonly created_at: string;
  readonly last_seen_at: string | null;
}

/**
 * Adds status, queue position, worker and template details to job rows. Positions count only
 * pending jobs, per online daemon that could run them: the best rank is the position and the
 * longest queue the size, as in the reference.
 */
export async function viewJobs(db: Kysely<Database>, rows: readonly ProvisionerJobRow[], now: Date): Promise<JobView[]> {
  if (rows.length === 0) return [];
  const organizationIds = [...new Set(rows.map((row) => row.organization_id))];
  const daemons: DaemonRow[] = await db
    .selectFrom('provisioner_daemons')
    .selectAll()
    .where('organization_id', 'in', organizationIds)
    .orderBy('created_at')
    .execute();
  const online = daemons.filter((d) => d.last_seen_at !== null && now.getTime() - Date.parse(d.last_seen_at) < DAEMON_STALE_MS);
  const queues = await queuesByDaemon(db, organizationIds, online);
  const versions = await versionDetails(db, rows);
  return rows.map((row) => {
    const tags = parseJson<Record<string, string>>(row.tags, {});
    const status = jobStatus(row);
    let position = 0;
    let size = 0;
    if (status === 'pending') {
      for (const queue of queues.values()) {
        const rank = queue.indexOf(row.id);
        if (rank < 0) continue;
        position = position === 0 ? rank + 1 : Math.min(position, rank + 1);
        size = Math.max(size, queue.length);
      }
    }
    const takers = row.started_at ? [] : daemons.filter((d) => canRun(d, row, tags)).map((d) => d.id);
    const input = parseJson<JobInput>(row.input, {});
    return {
      row,
      status,
      tags,
      input,
      queuePosition: position,
      queueSize: size,
      workerName: daemons.find((d) => d.id === row.worker_id)?.name,
      availableWorkers: takers,
      metadata: versions.get(input.template_version_id ?? '') ?? emptyMetadata,
    };
  });
}

/** How many daemons of an organization could run a job with these tags, and how many are online. */
export async function matchedProvisioners(
  db: Kysely<Database>,
  organizationId: string,
  provisioner: string,
  tags: ProvisionerTags,
  now: Date,
): Promise<{ count: number; available: number; most_recently_seen?: string }> {
  const daemons: DaemonRow[] = await db
    .selectFrom('provisioner_daemons')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .execute();
  const matching = daemons.filter(
    (d) => parseStringArray(d.provisioners).includes(provisioner) && daemonTakesJob(parseJson(d.tags, {}), tags),
  );
  const seen = matching
    .map((d) => d.last_seen_at)
    .filter((at): at is string => at !== null)
    .sort();
  const available = matching.filter((d) => d.last_seen_at !== null && now.getTime() - Date.parse(d.last_seen_at) < DAEMON_STALE_MS).length;
  const latest = seen.at(-1);
  return latest === undefined ? { count: matching.length, available } : { count: matching.length, available, most_recently_seen: latest };
}

const emptyMetadata = { template_version_name: '', template_id: '', template_name: '', template_display_name: '', template_icon: '' };

function canRun(daemon: DaemonRow, job: ProvisionerJobRow, jobTags: ProvisionerTags): boolean {
  return (
    daemon.organization_id === job.organization_id &&
    parseStringArray(daemon.provisioners).includes(job.provisioner) &&
    daemonTakesJob(parseJson(daemon.tags, {}), jobTags)
  );
}

async function queuesByDaemon(
  db: Kysely<Database>,
  organizationIds: readonly string[],
  online: readonly DaemonRow[],
): Promise<Map<string, string[]>> {
  const queues = new Map<string, string[]>();
  for (const organizationId of organizationIds) {
    const daemons = online.filter((d) => d.organization_id === organizationId);
    if (daemons.length === 0) continue;
    const queued = await listQueuedJobs(db, organizationId);
    for (const daemon of daemons) {
      queues.set(
        daemon.id,
        queued.filter((job) => canRun(daemon, job, parseJson(job.tags, {}))).map((job) => job.id),
      );
    }
  }
  return queues;
}

async function versionDetails(db: Kysely<Database>, rows: readonly ProvisionerJobRow[]): Promise<Map<string, JobView['metadata']>> {
  const ids = [...new Set(rows.map((row) => parseJson<JobInput>(row.input, {}).template_version_id).filter((id): id is string => !!id))];
  if (ids.length === 0) return new Map();
  const found = await db
    .selectFrom('template_versions as v')
    .leftJoin('templates as t', 't.id', 'v.template_id')
    .select([
      'v.id as id',
      'v.name as version_name',
      't.id as template_id',
      't.name as template_name',
      't.display_name as template_display_name',
      't.icon as template_icon',
    ])
    .where('v.id', 'in', ids)
    .execute();
  return new Map(
    found.map((v) => [
      v.id,
      {
        template_version_name: v.version_name,
        template_id: v.template_id ?? '',
        template_name: v.template_name ?? '',
        template_display_name: v.template_display_name ?? '',
        template_icon: v.template_icon ?? '',
      },
    ]),
  );
}
