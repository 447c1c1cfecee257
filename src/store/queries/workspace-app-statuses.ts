import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, WorkspaceAppStatusTable } from '../schema.js';
import { agentIdsOfJobs } from './workspace-agents.js';
import { inList } from '../in-list.js';

export type AppStatusRow = Selectable<WorkspaceAppStatusTable>;

export async function insertAppStatus(db: Kysely<Database>, row: Insertable<WorkspaceAppStatusTable>): Promise<void> {
  await db.insertInto('workspace_app_statuses').values(row).execute();
}

/** The app statuses of the agents of these build jobs, newest first; undefined when there is nothing to look up. */
export function appStatusesOfJobsQuery(db: Kysely<Database>, jobIds: readonly string[]) {
  return jobIds.length === 0
    ? undefined
    : db
        .selectFrom('workspace_app_statuses')
        .selectAll()
        .where('agent_id', 'in', agentIdsOfJobs(db, jobIds))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc');
}

/**
 * The statuses each workspace's newest app status (across all its builds' agents) is chosen from:
 * those of its newest moment, by id descending; undefined when there is nothing to look up.
 */
export function newestAppStatusesQuery(db: Kysely<Database>, workspaceIds: readonly string[]) {
  return workspaceIds.length === 0
    ? undefined
    : db
        .selectFrom('workspace_app_statuses as s')
        .selectAll()
        .where('s.workspace_id', 'in', inList(workspaceIds))
        .where('s.created_at', '=', (eb) =>
          eb
            .selectFrom('workspace_app_statuses as newest')
            .select((n) => n.fn.max('newest.created_at').as('at'))
            .whereRef('newest.workspace_id', '=', 's.workspace_id'),
        )
        .orderBy('s.id', 'desc');
}

/** Each workspace's first status among rows of {@link newestAppStatusesQuery}. */
export function latestOfEachWorkspace(rows: readonly AppStatusRow[]): Map<string, AppStatusRow> {
  const latest = new Map<string, AppStatusRow>();
  // Statuses within the same millisecond tie; the first by id is as good as any, and stable.
  for (const row of rows) if (!latest.has(row.workspace_id)) latest.set(row.workspace_id, row);
  return latest;
}
