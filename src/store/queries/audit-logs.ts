import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import type { DialectName } from '../database.js';
import type { AuditLogTable, Database } from '../schema.js';

/** An audit log row. */
export type AuditLogRow = AuditLogTable;

/** An audit log row with the name of its organization (empty outside any). */
export interface AuditLogWithOrganization extends AuditLogRow {
  readonly organization_name: string | null;
  readonly organization_display_name: string | null;
  readonly organization_icon: string | null;
}

/** Which entries a listing asks for; every filter given must hold. */
export interface AuditLogFilter {
  readonly resourceType?: string | undefined;
  readonly resourceId?: string | undefined;
  readonly resourceTarget?: string | undefined;
  readonly action?: string | undefined;
  /** Matched without regard to case. */
  readonly username?: string | undefined;
  readonly email?: string | undefined;
  readonly userId?: string | undefined;
  readonly requestId?: string | undefined;
  /** ISO 8601: entries at or after. */
  readonly dateFrom?: string | undefined;
  /** ISO 8601: entries before. */
  readonly dateBefore?: string | undefined;
  readonly buildReason?: string | undefined;
  /** An organization's id or name. */
  readonly organization?: string | undefined;
}

/** A page of a listing. */
export interface AuditLogPage {
  readonly limit: number;
  readonly offset: number;
}

type AuditScope = ExpressionBuilder<Database & { a: AuditLogTable }, 'a'>;

/** Which rows the reader may see, as a condition on `a` (the caller's RBAC filter in SQL). */
export type AuditVisibility = (eb: AuditScope) => Expression<SqlBool>;

/** Writes one audit entry. */
export async function insertAuditLog(db: Kysely<Database>, row: AuditLogRow): Promise<void> {
  await db.insertInto('audit_logs').values(row).execute();
}

function filtered(db: Kysely<Database>, filter: AuditLogFilter, visible: AuditVisibility) {
  let query = db.selectFrom('audit_logs as a').where((eb) => visible(eb as unknown as AuditScope));
  if (filter.resourceType !== undefined) query = query.where('a.resource_type', '=', filter.resourceType);
  if (filter.resourceId !== undefined) query = query.where('a.resource_id', '=', filter.resourceId);
  if (filter.resourceTarget !== undefined) query = query.where('a.resource_target', '=', filter.resourceTarget);
  if (filter.action !== undefined) query = query.where('a.action', '=', filter.action);
  if (filter.userId !== undefined) query = query.where('a.user_id', '=', filter.userId);
  if (filter.requestId !== undefined) query = query.where('a.request_id', '=', filter.requestId);
  if (filter.dateFrom !== undefined) query = query.where('a.time', '>=', filter.dateFrom);
  if (filter.dateBefore !== undefined) query = query.where('a.time', '<', filter.dateBefore);
  if (filter.buildReason !== undefined) {
    // The fields are written by JSON.stringify, which leaves no spaces; the value is one of the
    // build reasons (letters and underscores), so it needs no escaping in the pattern.
    query = query.where('a.additional_fields', 'like', `%"build_reason":"${filter.buildReason}"%`);
  }
  const { username, email, organization } = filter;
  if (username !== undefined || email !== undefined) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('users as u')
          .select('u.id')
          .whereRef('u.id', '=', 'a.user_id')
          .$if(username !== undefined, (qb) => qb.where((e) => e(e.fn('lower', ['u.username']), '=', (username ?? '').toLowerCase())))
          .$if(email !== undefined, (qb) => qb.where((e) => e(e.fn('lower', ['u.email']), '=', (email ?? '').toLowerCase()))),
      ),
    );
  }
  if (organization !== undefined) {
    query = query.where('a.organization_id', 'in', (eb) =>
      eb
        .selectFrom('organizations as o')
        .select('o.id')
        .where((e) => e.or([e('o.id', '=', organization), e('o.name', '=', organization.toLowerCase())])),
    );
  }
  return query;
}

/** One page of the entries that pass the filter and `visible`, newest first. */
export async function listAuditLogs(
  db: Kysely<Database>,
  dialect: DialectName,
  filter: AuditLogFilter,
  visible: AuditVisibility,
  page: AuditLogPage,
): Promise<AuditLogWithOrganization[]> {
  let query = filtered(db, filter, visible)
    .leftJoin('organizations as org', 'org.id', 'a.organization_id')
    .selectAll('a')
    .select(['org.name as organization_name', 'org.display_name as organization_display_name', 'org.icon as organization_icon'])
    .orderBy('a.time', 'desc')
    .orderBy('a.id', 'desc');
  if (page.limit > 0) query = query.limit(page.limit);
  if (page.offset > 0) query = query.$if(page.limit <= 0 && dialect === 'sqlite', (qb) => qb.limit(-1)).offset(page.offset);
  return query.execute();
}

/** How many entries pass the filter and `visible`. */
export async function countAuditLogs(db: Kysely<Database>, filter: AuditLogFilter, visible: AuditVisibility): Promise<number> {
  const row = await filtered(db, filter, visible)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Sets the status of entries a request wrote, once its answer is known; answers how many there were. */
export async function updateAuditLogStatus(
  db: Kysely<Database>,
  requestId: string,
  ids: readonly string[],
  status: number,
): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('audit_logs')
    .set({ status_code: status })
    .where('request_id', '=', requestId)
    .where('id', 'in', [...ids])
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** What the audit log shows of a resource an entry names: whether it is gone, and the parts of its link. */
export interface AuditedResourceState {
  readonly deleted: boolean;
  /** The names a link to the resource is made of: organization and template, owner and workspace. */
  readonly scope: string;
  readonly name: string;
  readonly buildNumber?: number;
}

/** The ids of the resources a page of entries names, by kind. */
export interface AuditedResourceIds {
  readonly templates: readonly string[];
  readonly users: readonly string[];
  readonly workspaces: readonly string[];
  readonly builds: readonly string[];
}

/** The state of the named resources, in at most one query per kind; a missing id is a resource gone. */
export async function auditedResourceStates(db: Kysely<Database>, ids: AuditedResourceIds): Promise<Map<string, AuditedResourceState>> {
  const states = new Map<string, AuditedResourceState>();
  const [templates, users, workspaces, builds] = await Promise.all([
    ids.templates.length === 0
      ? []
      : db
          .selectFrom('templates as t')
          .innerJoin('organizations as o', 'o.id', 't.organization_id')
          .select(['t.id', 't.deleted', 't.name', 'o.name as scope'])
          .where('t.id', 'in', [...ids.templates])
          .execute(),
    ids.users.length === 0
      ? []
      : db
          .selectFrom('users')
          .select(['id', 'deleted', 'username as name'])
          .where('id', 'in', [...ids.users])
          .execute(),
    ids.workspaces.length === 0
      ? []
      : db
          .selectFrom('workspaces as w')
          .innerJoin('users as u', 'u.id', 'w.owner_id')
          .select(['w.id', 'w.deleted', 'w.name', 'u.username as scope'])
          .where('w.id', 'in', [...ids.workspaces])
          .execute(),
    ids.builds.length === 0
      ? []
      : db
          .selectFrom('workspace_builds as b')
          .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
          .innerJoin('users as u', 'u.id', 'w.owner_id')
          .select(['b.id', 'b.build_number', 'w.deleted', 'w.name', 'u.username as scope'])
          .where('b.id', 'in', [...ids.builds])
          .execute(),
  ]);
  for (const t of templates) states.set(t.id, { deleted: Number(t.deleted) !== 0, scope: t.scope, name: t.name });
  for (const u of users) states.set(u.id, { deleted: Number(u.deleted) !== 0, scope: '', name: u.name });
  for (const w of workspaces) states.set(w.id, { deleted: Number(w.deleted) !== 0, scope: w.scope, name: w.name });
  for (const b of builds) {
    states.set(b.id, { deleted: Number(b.deleted) !== 0, scope: b.scope, name: b.name, buildNumber: Number(b.build_number) });
  }
  return states;
}
