import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, WorkspaceAgentTable, WorkspaceBuildTable, WorkspaceTable } from '../schema.js';

export type WorkspaceRow = Selectable<WorkspaceTable>;
export type WorkspaceBuildRow = Selectable<WorkspaceBuildTable>;
export type WorkspaceAgentRow = Selectable<WorkspaceAgentTable>;

/** One workspace by id, deleted or not. */
export async function getWorkspaceById(db: Kysely<Database>, id: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A user's workspace by name: the live one, else (when asked) the most recently deleted. */
export async function getWorkspaceByOwnerAndName(
  db: Kysely<Database>,
  ownerId: string,
  name: string,
  includeDeleted: boolean,
): Promise<WorkspaceRow | undefined> {
  let query = db
    .selectFrom('workspaces')
    .selectAll()
    .where('owner_id', '=', ownerId)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase());
  if (!includeDeleted) query = query.where('deleted', '=', 0);
  return query.orderBy('deleted').orderBy('updated_at', 'desc').executeTakeFirst();
}

/** The newest build of each of these workspaces. */
export async function latestBuilds(db: Kysely<Database>, workspaceIds: readonly string[]): Promise<Map<string, WorkspaceBuildRow>> {
  if (workspaceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('workspace_builds as b')
    .selectAll('b')
    .where('b.workspace_id', 'in', workspaceIds)
    .where((eb) =>
      eb(
        'b.build_number',
        '=',
        eb
          .selectFrom('workspace_builds as o')
          .select((o) => o.fn.max('o.build_number').as('n'))
          .whereRef('o.workspace_id', '=', 'b.workspace_id'),
      ),
    )
    .execute();
  return new Map(rows.map((row) => [row.workspace_id, row]));
}

/** A workspace's builds, newest first. */
export async function listBuilds(db: Kysely<Database>, workspaceId: string): Promise<WorkspaceBuildRow[]> {
  return db.selectFrom('workspace_builds').selectAll().where('workspace_id', '=', workspaceId).orderBy('build_number', 'desc').execute();
}

export async function getBuildById(db: Kysely<Database>, id: string): Promise<WorkspaceBuildRow | undefined> {
  return db.selectFrom('workspace_builds').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function getBuildByJobId(db: Kysely<Database>, jobId: string): Promise<WorkspaceBuildRow | undefined> {
  return db.selectFrom('workspace_builds').selectAll().where('job_id', '=', jobId).executeTakeFirst();
}

/** The agents of these resources, by name. */
export async function listAgentsOfResources(db: Kysely<Database>, resourceIds: readonly string[]): Promise<WorkspaceAgentRow[]> {
  if (resourceIds.length === 0) return [];
  return db.selectFrom('workspace_agents').selectAll().where('resource_id', 'in', resourceIds).orderBy('name').execute();
}
