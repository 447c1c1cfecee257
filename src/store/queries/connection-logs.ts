import type { ExpressionBuilder, Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { ConnectionLogTable, Database, OrganizationTable, UserTable } from '../schema.js';

/** A connection log row. */
export type ConnectionLogRow = ConnectionLogTable;

/** A row with what the API shows beside it: the workspace owner's name and the organization. */
export interface ConnectionLogView extends ConnectionLogRow {
  readonly workspace_owner_username: string;
  readonly organization_name: string;
  readonly organization_display_name: string;
  readonly organization_icon: string;
}

/** How a connection ended, written once when it does. */
export interface ConnectionLogEnd {
  readonly disconnect_time: string;
  readonly disconnect_reason: string;
  readonly code: number | null;
  readonly bytes_to_workspace: number;
  readonly bytes_from_workspace: number;
}

/** Which rows a listing asks for; every filter given must hold. Names and emails compare case-insensitively. */
export interface ConnectionLogFilter {
  readonly organizationId?: string | undefined;
  readonly workspaceOwner?: string | undefined;
  readonly workspaceOwnerId?: string | undefined;
  readonly workspaceOwnerEmail?: string | undefined;
  readonly workspaceId?: string | undefined;
  readonly type?: string | undefined;
  readonly userId?: string | undefined;
  readonly username?: string | undefined;
  readonly userEmail?: string | undefined;
  readonly connectedAfter?: string | undefined;
  readonly connectedBefore?: string | undefined;
  readonly connectionId?: string | undefined;
  readonly status?: 'ongoing' | 'completed' | undefined;
}

type Joined = Database & { c: ConnectionLogTable; o: UserTable; u: UserTable; org: OrganizationTable };
type JoinedQuery = SelectQueryBuilder<Joined, 'c' | 'o' | 'u' | 'org', object>;

/** Writes the row of a connection that just opened. */
export async function insertConnectionLog(db: Kysely<Database>, row: ConnectionLogRow): Promise<void> {
  await db.insertInto('connection_logs').values(row).execute();
}

/** Writes how a connection ended; a row already closed (by a restart's sweep) is left as it is. */
export async function closeConnectionLog(db: Kysely<Database>, id: string, end: ConnectionLogEnd): Promise<boolean> {
  const result = await db
    .updateTable('connection_logs')
    .set(end)
    .where('id', '=', id)
    .where('disconnect_time', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Closes every row a replica left open; returns how many. */
export async function closeOpenConnectionLogsOf(db: Kysely<Database>, replicaId: string, time: string, reason: string): Promise<number> {
  const result = await db
    .updateTable('connection_logs')
    .set({ disconnect_time: time, disconnect_reason: reason })
    .where('replica_id', '=', replicaId)
    .where('disconnect_time', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Rows with their owner and organization joined, narrowed by `filter`; the caller adds its authorization. */
export function selectConnectionLogs(db: Kysely<Database>, filter: ConnectionLogFilter): JoinedQuery {
  let query = (db as unknown as Kysely<Joined>)
    .selectFrom('connection_logs as c')
    .leftJoin('users as o', 'o.id', 'c.workspace_owner_id')
    .leftJoin('users as u', 'u.id', 'c.user_id')
    .leftJoin('organizations as org', 'org.id', 'c.organization_id') as unknown as JoinedQuery;
  const lower = (eb: ExpressionBuilder<Joined, 'c' | 'o' | 'u' | 'org'>, column: 'o.username' | 'o.email' | 'u.username' | 'u.email') =>
    eb.fn<string>('lower', [eb.ref(column)]);
  if (filter.organizationId !== undefined) query = query.where('c.organization_id', '=', filter.organizationId);
  if (filter.workspaceOwnerId !== undefined) query = query.where('c.workspace_owner_id', '=', filter.workspaceOwnerId);
  if (filter.workspaceOwner !== undefined)
    query = query.where((eb) => eb(lower(eb, 'o.username'), '=', filter.workspaceOwner?.toLowerCase() ?? ''));
  if (filter.workspaceOwnerEmail !== undefined)
    query = query.where((eb) => eb(lower(eb, 'o.email'), '=', filter.workspaceOwnerEmail?.toLowerCase() ?? ''));
  if (filter.workspaceId !== undefined) query = query.where('c.workspace_id', '=', filter.workspaceId);
  if (filter.type !== undefined) query = query.where('c.type', '=', filter.type);
  if (filter.userId !== undefined) query = query.where('c.user_id', '=', filter.userId);
  if (filter.username !== undefined) query = query.where((eb) => eb(lower(eb, 'u.username'), '=', filter.username?.toLowerCase() ?? ''));
  if (filter.userEmail !== undefined) query = query.where((eb) => eb(lower(eb, 'u.email'), '=', filter.userEmail?.toLowerCase() ?? ''));
  if (filter.connectedAfter !== undefined) query = query.where('c.connect_time', '>=', filter.connectedAfter);
  if (filter.connectedBefore !== undefined) query = query.where('c.connect_time', '<=', filter.connectedBefore);
  if (filter.connectionId !== undefined) query = query.where('c.connection_id', '=', filter.connectionId);
  if (filter.status === 'ongoing') query = query.where('c.disconnect_time', 'is', null);
  if (filter.status === 'completed') query = query.where('c.disconnect_time', 'is not', null);
  return query;
}

/** One page of a narrowed selection, newest first. */
export async function pageConnectionLogs(query: JoinedQuery, limit: number, offset: number): Promise<ConnectionLogView[]> {
  const rows = await query
    .selectAll('c')
    .select((eb) => [
      eb.fn.coalesce('o.username', eb.val('')).as('workspace_owner_username'),
      eb.fn.coalesce('org.name', eb.val('')).as('organization_name'),
      eb.fn.coalesce('org.display_name', eb.val('')).as('organization_display_name'),
      eb.fn.coalesce('org.icon', eb.val('')).as('organization_icon'),
    ])
    .orderBy('c.connect_time', 'desc')
    .orderBy('c.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((row) => ({
    ...(row as unknown as ConnectionLogView),
    bytes_to_workspace: Number(row.bytes_to_workspace),
    bytes_from_workspace: Number(row.bytes_from_workspace),
  }));
}

/** How many rows a narrowed selection holds. */
export async function countConnectionLogs(query: JoinedQuery): Promise<number> {
  const row = await query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** The users who made connections, by id. */
export async function usersByIds(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, Selectable<UserTable>>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}
