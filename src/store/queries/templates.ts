import { sql, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool, type Updateable } from 'kysely';
import type { DialectName } from '../database.js';
import { joined } from '../joined-rows.js';
import type { OrganizationRow } from './organizations.js';
import type { ProvisionerJobRow } from './provisioner-jobs.js';
import type { Database, TemplateTable, TemplateVersionTable } from '../schema.js';
import type { TemplateStatistics, TemplateStatisticsCache } from '../template-statistics-cache.js';

export type TemplateRow = Selectable<TemplateTable>;
export type TemplateVersionRow = Selectable<TemplateVersionTable>;

/** A live template by id. */
export async function getTemplateById(db: Kysely<Database>, id: string): Promise<TemplateRow | undefined> {
  return db.selectFrom('templates').selectAll().where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
}

/** A live template with its organization, a version and that version's import job. */
export interface TemplateWithVersion {
  readonly template: TemplateRow;
  readonly organization: OrganizationRow | undefined;
  /** The version asked for, whichever template it belongs to; undefined when there is none. */
  readonly version: TemplateVersionRow | undefined;
  readonly job: ProvisionerJobRow | undefined;
}

/**
 * A live template with its organization, a version (its active one unless `versionId` names
 * another) and that version's import job, in one statement.
 */
export async function getTemplateWithVersion(
  db: Kysely<Database>,
  id: string,
  versionId: string | undefined,
): Promise<TemplateWithVersion | undefined> {
  const { template, organization, version, job } = joined;
  const versionKey = versionId === undefined ? sql`"t"."active_version_id"` : sql`${versionId}`;
  const { rows } = await sql<
    Record<string, unknown>
  >`select ${template.columns}, ${organization.columns}, ${version.columns}, ${job.columns}
    from "templates" as "t"
    left join "organizations" as "o" on "o"."id" = "t"."organization_id"
    left join "template_versions" as "v" on "v"."id" = ${versionKey}
    left join "provisioner_jobs" as "j" on "j"."id" = "v"."job_id"
    where "t"."id" = ${id} and "t"."deleted" = 0`.execute(db);
  const [row] = rows;
  const found = row && template.take(row);
  return found && { template: found, organization: organization.take(row), version: version.take(row), job: job.take(row) };
}

/** A live template of an organization by name, case-insensitively. */
export async function getTemplateByName(db: Kysely<Database>, organizationId: string, name: string): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('templates')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase())
    .where('deleted', '=', 0)
    .executeTakeFirst();
}

/** What a template list selects besides who may see it; text is matched lowercased. */
export interface TemplateListFilter {
  /** Only templates of these organizations (none at all when empty). */
  readonly organizationIds?: readonly string[] | undefined;
  readonly exactName?: string | undefined;
  /** A substring of the name and display name, as one text. */
  readonly text?: string | undefined;
  /** Only deprecated templates (true) or only the others (false); both when absent. */
  readonly deprecated?: boolean | undefined;
  readonly ids?: readonly string[] | undefined;
  /** The creator's username. */
  readonly author?: string | undefined;
  /** Rows to return; 0 means all. */
  readonly limit?: number | undefined;
  readonly offset?: number | undefined;
}

/**
 * Live templates that pass `filter` and the caller's authorization condition, by name; filtered
 * and paged in SQL.
 */
export async function listTemplates(
  db: Kysely<Database>,
  dialect: DialectName,
  allowed: (eb: ExpressionBuilder<Database, 'templates'>) => Expression<SqlBool>,
  filter: TemplateListFilter,
): Promise<TemplateRow[]> {
  if (filter.organizationIds?.length === 0 || filter.ids?.length === 0) return [];
  let query = db.selectFrom('templates').selectAll().where('deleted', '=', 0).where(allowed);
  if (filter.organizationIds) query = query.where('organization_id', 'in', [...filter.organizationIds]);
  if (filter.deprecated !== undefined) query = query.where('deprecation_message', filter.deprecated ? '<>' : '=', '');
  if (filter.exactName) query = query.where(sql<string>`lower(name)`, '=', filter.exactName.toLowerCase());
  if (filter.text) {
    const pattern = `%${filter.text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where(sql<boolean>`lower(name || ' ' || display_name) LIKE ${pattern} ESCAPE '\\'`);
  }
  if (filter.ids) query = query.where('id', 'in', [...filter.ids]);
  if (filter.author) {
    const author = filter.author.toLowerCase();
    query = query.where('created_by', 'in', (eb) =>
      eb
        .selectFrom('users')
        .select('id')
        .where(sql<string>`lower(username)`, '=', author),
    );
  }
  query = query.orderBy('name').orderBy('id');
  const limit = filter.limit ?? 0;
  const offset = filter.offset ?? 0;
  if (limit > 0) query = query.limit(limit);
  // SQLite accepts OFFSET only after a LIMIT; -1 there means no limit.
  if (offset > 0) query = query.$if(limit <= 0 && dialect === 'sqlite', (qb) => qb.limit(-1)).offset(offset);
  return query.execute();
}

/** The rows a page of templates shows besides its own: organizations, creators, users and build times. */
export interface TemplateRelations {
  readonly organizations: ReadonlyMap<string, { readonly name: string; readonly display_name: string; readonly icon: string }>;
  readonly creatorNames: ReadonlyMap<string, string>;
  /** Distinct owners of live workspaces, per template. */
  readonly activeUsers: ReadonlyMap<string, number>;
  /** Durations in ms of successful builds started since `since`, per template and transition. */
  readonly buildDurations: ReadonlyMap<string, ReadonlyMap<string, readonly number[]>>;
}

/**
 * The related rows of some templates, in at most four queries whatever their number. The use
 * figures come from `statistics` where it has them fresh; those computed are given back to it.
 */
export async function templateRelations(
  db: Kysely<Database>,
  rows: readonly TemplateRow[],
  since: string,
  statistics?: TemplateStatisticsCache,
): Promise<TemplateRelations> {
  const ids = rows.map((row) => row.id);
  const orgIds = [...new Set(rows.map((row) => row.organization_id))];
  const creatorIds = [...new Set(rows.map((row) => row.created_by))];
  if (ids.length === 0) return { organizations: new Map(), creatorNames: new Map(), activeUsers: new Map(), buildDurations: new Map() };
  const known = statistics?.fresh(ids) ?? new Map<string, TemplateStatistics>();
  const missing = ids.filter((id) => !known.has(id));
  const begun = statistics?.begin() ?? 0;
  const [organizations, creators, computed] = await Promise.all([
    db.selectFrom('organizations').select(['id', 'name', 'display_name', 'icon']).where('id', 'in', orgIds).execute(),
    db.selectFrom('users').select(['id', 'username']).where('id', 'in', creatorIds).execute(),
    templateStatistics(db, missing, since),
  ]);
  statistics?.keep(computed, begun);
  const all = new Map([...known, ...computed]);
  return {
    organizations: new Map(organizations.map((org) => [org.id, org])),
    creatorNames: new Map(creators.map((user) => [user.id, user.username])),
    activeUsers: new Map([...all].map(([id, figures]) => [id, figures.activeUsers])),
    buildDurations: new Map([...all].map(([id, figures]) => [id, figures.buildDurations])),
  };
}

/** The use figures of `ids`, in two queries (none without ids): an entry for every id, empty when unused. */
async function templateStatistics(db: Kysely<Database>, ids: readonly string[], since: string): Promise<Map<string, TemplateStatistics>> {
  if (ids.length === 0) return new Map();
  const [owners, builds] = await Promise.all([
    db
      .selectFrom('workspaces')
      .select(['template_id', (eb) => eb.fn.count<number | string>('owner_id').distinct().as('owners')])
      .where('template_id', 'in', ids)
      .where('deleted', '=', 0)
      .groupBy('template_id')
      .execute(),
    db
      .selectFrom('workspace_builds as b')
      .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
      .innerJoin('provisioner_jobs as j', 'j.id', 'b.job_id')
      .select([
        'w.template_id as template_id',
        'b.transition as transition',
        'j.started_at as started_at',
        'j.completed_at as completed_at',
      ])
      .where('w.template_id', 'in', ids)
      .where('j.started_at', '>=', since)
      .where('j.completed_at', 'is not', null)
      .where('j.canceled_at', 'is', null)
      .where('j.error', '=', '')
      .execute(),
  ]);
  const activeUsers = new Map(owners.map((row) => [row.template_id, Number(row.owners)]));
  const durations = new Map<string, Map<string, number[]>>();
  for (const build of builds) {
    if (!build.started_at || !build.completed_at) continue;
    let byTransition = durations.get(build.template_id);
    if (!byTransition) durations.set(build.template_id, (byTransition = new Map()));
    let list = byTransition.get(build.transition);
    if (!list) byTransition.set(build.transition, (list = []));
    list.push(Date.parse(build.completed_at) - Date.parse(build.started_at));
  }
  return new Map(
    ids.map((id) => [id, { activeUsers: activeUsers.get(id) ?? 0, buildDurations: durations.get(id) ?? new Map<string, number[]>() }]),
  );
}

/** Whether any live workspace uses the template. */
export async function templateHasWorkspaces(db: Kysely<Database>, templateId: string): Promise<boolean> {
  const row = await db
    .selectFrom('workspaces')
    .select('id')
    .where('template_id', '=', templateId)
    .where('deleted', '=', 0)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Brings the port shares of a template's workspaces down to its new maximum level: to `owner` no
 * port stays shared, otherwise shares above the maximum come down to it.
 */
export async function narrowPortShares(
  db: Kysely<Database>,
  templateId: string,
  maxLevel: string,
  levels: readonly string[],
): Promise<void> {
  const max = levels.indexOf(maxLevel);
  const workspaceIds = db.selectFrom('workspaces').select('id').where('template_id', '=', templateId);
  if (max <= 0) {
    await db.deleteFrom('workspace_port_shares').where('workspace_id', 'in', workspaceIds).execute();
    return;
  }
  const above = levels.slice(max + 1);
  // Nothing is above the highest level; PostgreSQL also refuses the empty `in ()` SQLite accepts.
  if (above.length === 0) return;
  await db
    .updateTable('workspace_port_shares')
    .set({ share_level: maxLevel })
    .where('workspace_id', 'in', workspaceIds)
    .where('share_level', 'in', above)
    .execute();
}

export async function insertTemplate(db: Kysely<Database>, row: TemplateRow): Promise<void> {
  await db.insertInto('templates').values(row).execute();
}

export async function updateTemplate(db: Kysely<Database>, id: string, changes: Updateable<TemplateTable>): Promise<void> {
  await db.updateTable('templates').set(changes).where('id', '=', id).execute();
}

/** One version by id. */
export async function getTemplateVersionById(db: Kysely<Database>, id: string): Promise<TemplateVersionRow | undefined> {
  return db.selectFrom('template_versions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** One version of a template by name, case-insensitively. */
export async function getTemplateVersionByName(
  db: Kysely<Database>,
  templateId: string,
  name: string,
): Promise<TemplateVersionRow | undefined> {
  return db
    .selectFrom('template_versions')
    .selectAll()
    .where('template_id', '=', templateId)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase())
    .executeTakeFirst();
}

/** Versions of a template, oldest first. */
export async function listTemplateVersions(db: Kysely<Database>, templateId: string): Promise<TemplateVersionRow[]> {
  return db.selectFrom('template_versions').selectAll().where('template_id', '=', templateId).orderBy('created_at').orderBy('id').execute();
}

/** Which versions of a template a page shows. */
export interface TemplateVersionPage {
  readonly includeArchived: boolean;
  /** Only versions after this one (which must be listed itself). */
  readonly afterId?: string | undefined;
  readonly offset: number;
  /** Rows to return; 0 means all. */
  readonly limit: number;
}

/**
 * A page of a template's versions, oldest first, filtered and paged in SQL; `missing-after` when
 * the `afterId` version is not one the page could list.
 */
export async function pageTemplateVersions(
  db: Kysely<Database>,
  dialect: DialectName,
  templateId: string,
  page: TemplateVersionPage,
): Promise<TemplateVersionRow[] | 'missing-after'> {
  let query = db.selectFrom('template_versions').selectAll().where('template_id', '=', templateId);
  if (!page.includeArchived) query = query.where('archived', '=', 0);
  if (page.afterId) {
    const after = await query.where('id', '=', page.afterId).executeTakeFirst();
    if (!after) return 'missing-after';
    query = query.where((eb) =>
      eb.or([eb('created_at', '>', after.created_at), eb.and([eb('created_at', '=', after.created_at), eb('id', '>', after.id)])]),
    );
  }
  query = query.orderBy('created_at').orderBy('id');
  if (page.limit > 0) query = query.limit(page.limit);
  if (page.offset > 0) query = query.$if(page.limit <= 0 && dialect === 'sqlite', (qb) => qb.limit(-1)).offset(page.offset);
  return query.execute();
}

/** The newest version of a template created before `createdAt`. */
export async function previousTemplateVersion(
  db: Kysely<Database>,
  templateId: string,
  createdAt: string,
): Promise<TemplateVersionRow | undefined> {
  return db
    .selectFrom('template_versions')
    .selectAll()
    .where('template_id', '=', templateId)
    .where('created_at', '<', createdAt)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The public fields of the users who created some versions. */
export async function versionCreators(
  db: Kysely<Database>,
  userIds: readonly string[],
): Promise<Map<string, { readonly id: string; readonly username: string; readonly avatar_url: string }>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .select(['id', 'username', 'avatar_url'])
    .where('id', 'in', [...new Set(userIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

export async function insertTemplateVersion(db: Kysely<Database>, row: TemplateVersionRow): Promise<void> {
  await db.insertInto('template_versions').values(row).execute();
}

export async function updateTemplateVersion(db: Kysely<Database>, id: string, changes: Updateable<TemplateVersionTable>): Promise<void> {
  await db.updateTable('template_versions').set(changes).where('id', '=', id).execute();
}

/** The ACL fields of templates by id (for authorizing their versions). */
export async function templateAcls(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Pick<TemplateRow, 'id' | 'organization_id' | 'user_acl' | 'group_acl'>[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('templates')
    .select(['id', 'organization_id', 'user_acl', 'group_acl'])
    .where('id', 'in', [...ids])
    .execute();
}

/** The versions whose import jobs these are, and the versions named by id (dry runs name theirs). */
export async function versionsOfJobs(
  db: Kysely<Database>,
  jobIds: readonly string[],
  versionIds: readonly string[],
): Promise<TemplateVersionRow[]> {
  if (jobIds.length === 0 && versionIds.length === 0) return [];
  return db
    .selectFrom('template_versions')
    .selectAll()
    .where((eb) => eb.or([eb('job_id', 'in', [...jobIds, '']), eb('id', 'in', [...versionIds, ''])]))
    .execute();
}
