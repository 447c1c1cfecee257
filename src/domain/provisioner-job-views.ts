import type { AuthorizedStore } from '../store/authorized-store.js';
import { parseJson, parseStringArray } from '../store/json-column.js';
import type { JobRelations, KnownJobRelations, ProvisionerDaemonRow, ProvisionerJobRow, QueueCount } from '../store/rows.js';
import type { JobInput } from './provisioner-job-protocol.js';
import { jobStatus, type JobStatus } from './provisioner-job-status.js';
import { daemonTakesJob, type ProvisionerTags } from './provisioner-tags.js';

/** A daemon that has not been heard from for this long is offline. */
export const DAEMON_STALE_MS = 90_000;

/** How many daemons of a job's organization could run it, and how many are online. */
export interface MatchedProvisioners {
  readonly count: number;
  readonly available: number;
  readonly most_recently_seen: string | null;
}

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
  readonly matchedProvisioners: MatchedProvisioners;
  readonly metadata: {
    readonly template_version_name: string;
    /** Null while a version belongs to no template yet. */
    readonly template_id: string | null;
    readonly template_name: string;
    readonly template_display_name: string;
    readonly template_icon: string;
    /** Null for jobs that build no workspace. */
    readonly workspace_id: string | null;
    readonly workspace_name: string | null;
  };
}

type DaemonRow = ProvisionerDaemonRow;

/**
 * Adds status, queue position, worker and template details to job rows the store's subject may
 * read, with every related row fetched in a fixed number of queries. Positions count only
 * pending jobs, per online daemon that could run them: the best rank is the position and the
 * longest queue the size, as in the reference.
 */
export async function viewJobs(
  store: AuthorizedStore,
  rows: readonly ProvisionerJobRow[],
  now: Date,
  known?: KnownJobRelations,
): Promise<JobView[]> {
  if (rows.length === 0) return [];
  return viewJobsWith(await store.provisionerJobs.relations(rows, known), rows, now);
}

/** {@link viewJobs} from related rows already read. */
export function viewJobsWith(relations: JobRelations, rows: readonly ProvisionerJobRow[], now: Date): JobView[] {
  const daemons = relations.daemons.map(readDaemon);
  const online = daemons.filter((d) => isOnline(d.row, now));
  const kindTags = new KindTags();
  return rows.map((row) => {
    const tags = parseJson<Record<string, string>>(row.tags, {});
    const status = jobStatus(row);
    const { position, size } =
      status === 'pending' ? queuePlace(row, tags, relations.queued.get(row.id) ?? [], online, kindTags) : { position: 0, size: 0 };
    const takers = row.started_at ? [] : daemons.filter((d) => canRun(d, row, tags)).map((d) => d.row.id);
    const input = parseJson<JobInput>(row.input, {});
    const build = relations.builds.get(input.workspace_build_id ?? '');
    const version = relations.versions.get(input.template_version_id ?? build?.template_version_id ?? '');
    const workspace = { workspace_id: build?.workspace_id ?? null, workspace_name: build?.workspace_name ?? null };
    return {
      row,
      status,
      tags,
      input,
      queuePosition: position,
      queueSize: size,
      workerName: daemons.find((d) => d.row.id === row.worker_id)?.row.name,
      availableWorkers: takers,
      matchedProvisioners: matchedProvisioners(daemons, row, tags, now),
      metadata: version
        ? {
            template_version_name: version.version_name,
            template_id: version.template_id,
            template_name: version.template_name ?? '',
            template_display_name: version.template_display_name ?? '',
            template_icon: version.template_icon ?? '',
            ...workspace,
          }
        : { ...emptyMetadata, ...workspace },
    };
  });
}

/** A daemon row with its provisioner types and tags parsed, once per answer. */
interface ReadDaemon {
  readonly row: DaemonRow;
  readonly provisioners: readonly string[];
  readonly tags: ProvisionerTags;
}

function readDaemon(row: DaemonRow): ReadDaemon {
  return { row, provisioners: parseStringArray(row.provisioners), tags: parseJson<ProvisionerTags>(row.tags, {}) };
}

function isOnline(daemon: DaemonRow, now: Date): boolean {
  return daemon.last_seen_at !== null && now.getTime() - Date.parse(daemon.last_seen_at) < DAEMON_STALE_MS;
}

/** How many daemons of the job's organization could run a job with these tags, and how many are online. */
function matchedProvisioners(
  daemons: readonly ReadDaemon[],
  job: ProvisionerJobRow,
  tags: ProvisionerTags,
  now: Date,
): MatchedProvisioners {
  const matching = daemons.filter((d) => canRun(d, job, tags)).map((d) => d.row);
  const seen = matching
    .map((d) => d.last_seen_at)
    .filter((at): at is string => at !== null)
    .sort();
  const available = matching.filter((d) => isOnline(d, now)).length;
  const latest = seen.at(-1);
  return { count: matching.length, available, most_recently_seen: latest ?? null };
}

const emptyMetadata = { template_version_name: '', template_id: null, template_name: '', template_display_name: '', template_icon: '' };

function canRun(daemon: ReadDaemon, job: Pick<ProvisionerJobRow, 'organization_id' | 'provisioner'>, jobTags: ProvisionerTags): boolean {
  return (
    daemon.row.organization_id === job.organization_id &&
    daemon.provisioners.includes(job.provisioner) &&
    daemonTakesJob(daemon.tags, jobTags)
  );
}

/**
 * A pending job's place in its queue: for each online daemon that could run it, its rank among the
 * queued jobs that daemon could run, and how many those are. The best rank is the position and the
 * longest queue the size, as in the reference. Counted from the queue's kinds (a few), not its jobs.
 */
function queuePlace(
  job: ProvisionerJobRow,
  jobTags: ProvisionerTags,
  counts: readonly QueueCount[],
  online: readonly ReadDaemon[],
  kindTags: KindTags,
): { readonly position: number; readonly size: number } {
  let position = 0;
  let size = 0;
  if (counts.length === 0) return { position, size };
  for (const daemon of online) {
    if (!canRun(daemon, job, jobTags)) continue;
    let ahead = 0;
    let queued = 0;
    for (const kind of counts) {
      if (!canRun(daemon, { organization_id: job.organization_id, provisioner: kind.provisioner }, kindTags.parse(kind.tags))) continue;
      ahead += kind.ahead;
      queued += kind.queued;
    }
    position = position === 0 ? ahead + 1 : Math.min(position, ahead + 1);
    size = Math.max(size, queued);
  }
  return { position, size };
}

/** The tags of the queues' kinds, each distinct set parsed once per answer. */
class KindTags {
  readonly #parsed = new Map<string, ProvisionerTags>();

  parse(tags: string): ProvisionerTags {
    let parsed = this.#parsed.get(tags);
    if (!parsed) {
      parsed = parseJson<ProvisionerTags>(tags, {});
      this.#parsed.set(tags, parsed);
    }
    return parsed;
  }
}
