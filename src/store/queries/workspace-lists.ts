import { sql, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../database.js';
import type { Database } from '../schema.js';
import type { WorkspaceRow } from './workspaces.js';

/** Seconds without a heartbeat after which a connected agent counts as gone (domain/agent-status.ts). */
const AGENT_INACTIVE_TIMEOUT_MS = 30_000;

/** The filters of `GET /workspaces`, each one a condition in SQL. */
export interface WorkspaceListFilter {
  readonly ownerId?: string | undefined;
  /** A template name, lowercased; matches live templates of that name. */
  readonly templateName?: string | undefined;
  /** Lowercased text the workspace name contains. */
  readonly name?: string | undefined;
  /** The latest build's status (`running`, `stopped`, `failed`, ...). */
  readonly status?: string | undefined;
  /** Whether the latest build uses another version than the template's active one. */
  readonly outdated?: boolean | undefined;
  readonly dormant?: boolean | undefined;
  /** Whether the workspace is shared with anyone: its user or group ACL is not empty. */
  readonly shared?: boolean | undefined;
  /** An agent of the latest build has this status (`connecting`, `connected`, `disconnected`, `timeout`). */
  readonly hasAgent?: string | undefined;
}

/** One page of a workspace list: where the clock stands (agent statuses depend on it), and the page. */
export interface WorkspacePage {
  readonly now: Date;
  readonly limit: number;
  readonly offset: number;
  /** Who asks: their own favorites come first. */
  readonly requesterId: string;
}

type Scope = ExpressionBuilder<Database & { w: Database['workspaces'] }, 'w'>;

/**
 * Live workspaces that pass `allowed` (the subject's list filter) and `filter`: one page of them,
 * the requester's own favorites first, then by owner and name, and how many there are in all. The
 * status is on the workspace row; outdatedness and agent status are read from the latest build and
 * its agents in SQL, so only the page's rows leave the database.
 */
export async function listWorkspacePage(
  db: Kysely<Database>,
  dialect: DialectName,
  query: {
    readonly allowed: (eb: Scope) => Expression<SqlBool>;
    readonly filter: WorkspaceListFilter;
    readonly page: WorkspacePage;
  },
): Promise<{ rows: WorkspaceRow[]; count: number }> {
  const { filter, page } = query;
  const byBuild = buildConditions(dialect, filter, page.now);
  const latestMatches = sql.join(
    [
      sql`not exists (select 1 from workspace_builds nb where nb.workspace_id = lb.workspace_id and nb.build_number > lb.build_number)`,
      ...byBuild,
    ].map((condition) => sql`(${condition})`),
    sql` and `,
  );
  const live = db
    .selectFrom('workspaces as w')
    .where('w.deleted', '=', 0)
    .where((eb) => query.allowed(eb))
    .where((eb) => eb.and(conditions(eb, filter)));
  // Counting visits every match: one pass joining the latest builds and their jobs, by covering indexes.
  const counted = await live
    .$if(byBuild.length > 0, (qb) =>
      qb
        .innerJoin('workspace_builds as lb', 'lb.workspace_id', 'w.id')
        .innerJoin('provisioner_jobs as lj', 'lj.id', 'lb.job_id')
        .where(sql<SqlBool>`${latestMatches}`),
    )
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirst();
  const matching = live
    .$if(byBuild.length > 0, (qb) =>
      qb.where(
        sql<SqlBool>`exists (select 1 from workspace_builds lb join provisioner_jobs lj on lj.id = lb.job_id where lb.workspace_id = w.id and ${latestMatches})`,
      ),
    )
    .selectAll('w');
  // The requester's own favorites come first, then everyone's workspaces by owner and name. Each
  // part walks an index in its order (owner and name) and stops once the page is full, so a page
  // costs what it holds (and its offset), not the whole list: one ORDER BY over both keys would
  // sort every match.
  const isFavorite = (eb: Scope) => eb.and([eb('w.owner_id', '=', page.requesterId), eb('w.favorite', '=', 1)]);
  const end = page.limit > 0 ? page.offset + page.limit : undefined;
  const favorites = await inOrder(matching.where(isFavorite), dialect, { limit: end, offset: 0 }).execute();
  // Fewer favorites than the page's end: all of them were read, and the rest follow them.
  const favoriteCount = end === undefined || favorites.length < end ? favorites.length : undefined;
  const rows = favorites.slice(page.offset, end);
  if (favoriteCount !== undefined && (end === undefined || rows.length < page.limit)) {
    const others = await inOrder(
      matching.where((eb) => eb.not(isFavorite(eb))),
      dialect,
      {
        limit: end === undefined ? undefined : page.limit - rows.length,
        offset: Math.max(0, page.offset - favoriteCount),
      },
    ).execute();
    rows.push(...others);
  }
  return { rows, count: Number(counted?.count ?? 0) };
}

/** A list's rows by owner and name (the live workspaces' index), from `offset`, at most `limit` of them. */
function inOrder<Q extends SelectQueryBuilder<Database & { w: Database['workspaces'] }, 'w', WorkspaceRow>>(
  rows: Q,
  dialect: DialectName,
  window: { readonly limit: number | undefined; readonly offset: number },
): Q {
  let ordered = rows.orderBy('w.owner_id').orderBy('w.name') as Q;
  if (window.limit !== undefined) ordered = ordered.limit(window.limit) as Q;
  // SQLite accepts OFFSET only after a LIMIT; -1 there means no limit.
  if (window.offset > 0) {
    if (window.limit === undefined && dialect === 'sqlite') ordered = ordered.limit(-1) as Q;
    ordered = ordered.offset(window.offset) as Q;
  }
  return ordered;
}

function conditions(eb: Scope, filter: WorkspaceListFilter): Expression<SqlBool>[] {
  const all: Expression<SqlBool>[] = [];
  if (filter.ownerId) all.push(eb('w.owner_id', '=', filter.ownerId));
  if (filter.templateName) {
    all.push(
      eb(
        'w.template_id',
        'in',
        eb
          .selectFrom('templates')
          .select('templates.id')
          .where('templates.deleted', '=', 0)
          .where(sql`lower(templates.name)`, '=', filter.templateName),
      ),
    );
  }
  if (filter.name) all.push(eb(sql`lower(w.name)`, 'like', `%${filter.name.toLowerCase().replace(/[%_\\]/g, '')}%`));
  if (filter.dormant !== undefined) all.push(eb('w.dormant_at', filter.dormant ? 'is not' : 'is', null));
  if (filter.shared !== undefined) {
    // ACLs are written by the store as compact JSON, so an empty one is always `{}`.
    const shared = eb.or([eb('w.user_acl', '<>', '{}'), eb('w.group_acl', '<>', '{}')]);
    all.push(filter.shared ? shared : eb.not(shared));
  }
  // Kept by triggers from the latest build and its job (store/migrations/0012-workspace-latest-build-status.ts).
  if (filter.status) all.push(eb('w.latest_build_status', '=', filter.status));
  return all;
}

/** The filters on the latest build `lb` of `w`, its job `lj`, its template and its agents, as SQL conditions. */
function buildConditions(dialect: DialectName, filter: WorkspaceListFilter, now: Date): RawBuilder<unknown>[] {
  const all: RawBuilder<unknown>[] = [];
  if (filter.outdated !== undefined) {
    const compare = filter.outdated ? sql.raw('<>') : sql.raw('=');
    all.push(
      sql`exists (select 1 from templates lt where lt.id = w.template_id and lt.active_version_id ${compare} lb.template_version_id)`,
    );
  }
  if (filter.hasAgent) {
    const status = agentStatusCondition(filter.hasAgent, dialect, now);
    all.push(
      sql`exists (select 1 from workspace_resources lr join workspace_agents la on la.resource_id = lr.id where lr.job_id = lb.job_id and ${status})`,
    );
  }
  return all;
}

/**
 * An agent status as a condition on the agent `la`, the rules of domain/agent-status.ts in SQL
 * with the clock's `now` as a parameter: never connected is `connecting` until the definition's
 * connection timeout passes (`timeout`), a stored disconnect at or after the last connection or no
 * heartbeat for 30 s is `disconnected`, anything else `connected`. Timestamps are ISO strings, so
 * they compare as text.
 */
function agentStatusCondition(status: string, dialect: DialectName, now: Date): RawBuilder<unknown> {
  const lastSeen = sql`coalesce(la.last_connected_at, la.first_connected_at)`;
  const stale = new Date(now.getTime() - AGENT_INACTIVE_TIMEOUT_MS).toISOString();
  const gone = sql`((la.disconnected_at is not null and la.disconnected_at >= ${lastSeen}) or ${lastSeen} < ${stale})`;
  const timeoutSeconds =
    dialect === 'sqlite'
      ? sql`coalesce(json_extract(la.definition, '$.connection_timeout_seconds'), 0)`
      : sql`coalesce((la.definition::jsonb ->> 'connection_timeout_seconds')::float8, 0)`;
  const secondsSinceCreated =
    dialect === 'sqlite'
      ? sql`((julianday(${now.toISOString()}) - julianday(la.created_at)) * 86400.0)`
      : sql`extract(epoch from (${now.toISOString()}::timestamptz - la.created_at::timestamptz))`;
  const timedOut = sql`(${timeoutSeconds} > 0 and ${secondsSinceCreated} > ${timeoutSeconds})`;
  switch (status) {
    case 'connecting':
      return sql`la.first_connected_at is null and not ${timedOut}`;
    case 'timeout':
      return sql`la.first_connected_at is null and ${timedOut}`;
    case 'disconnected':
      return sql`la.first_connected_at is not null and ${gone}`;
    case 'connected':
      return sql`la.first_connected_at is not null and not ${gone}`;
    default:
      return sql`1 = 0`;
  }
}

/**
 * Live workspaces that the lifecycle executor may have to act on at `tick`: a superset, cut down
 * in SQL, of those `decideTransition` (domain/schedule/lifecycle-decisions.ts) acts on. Its
 * latest job must be finished; then autostop (a start past its deadline, or an owner suspended),
 * autostart (a stopped workspace with a schedule on a template that allows it; the schedule itself
 * is read by the caller), stop after a failed start, dormancy, and deletion of dormant workspaces.
 * Time comparisons keep a second of slack: the caller's rules decide exactly.
 */
export async function listWorkspacesDueForLifecycle(db: Kysely<Database>, dialect: DialectName, tick: Date): Promise<WorkspaceRow[]> {
  const tickIso = tick.toISOString();
  const tickMs = tick.getTime() + 1000;
  const ms = (column: string) =>
    dialect === 'sqlite'
      ? sql`((julianday(${sql.ref(column)}) - 2440587.5) * 86400000.0)`
      : sql`(extract(epoch from ${sql.ref(column)}::timestamptz) * 1000)`;
  const started = sql`b.transition = 'start'`;
  const failed = sql`j.error <> ''`;
  const due = sql<SqlBool>`(
    (${started} and not ${failed} and w.dormant_at is null and (u.status = 'suspended' or (b.deadline is not null and b.deadline <= ${tickIso})))
    or (b.transition = 'stop' and not ${failed} and w.dormant_at is null and u.status = 'active'
        and w.autostart_schedule is not null and w.autostart_schedule <> '' and t.allow_user_autostart = 1)
    or (${started} and ${failed} and t.failure_ttl_ms > 0 and j.completed_at is not null
        and ${ms('j.completed_at')} + t.failure_ttl_ms < ${tickMs})
    or (w.dormant_at is null and t.time_til_dormant_ms > 0 and ${ms('w.last_used_at')} + t.time_til_dormant_ms < ${tickMs})
    or (w.dormant_at is not null and w.deleting_at is not null and t.time_til_dormant_autodelete_ms > 0 and w.deleting_at <= ${tickIso})
  )`;
  return (
    db
      .selectFrom('workspaces as w')
      .innerJoin('workspace_builds as b', 'b.workspace_id', 'w.id')
      .innerJoin('provisioner_jobs as j', 'j.id', 'b.job_id')
      .innerJoin('templates as t', 't.id', 'w.template_id')
      .innerJoin('users as u', 'u.id', 'w.owner_id')
      .selectAll('w')
      .where('w.deleted', '=', 0)
      .where('b.build_number', '=', (eb) =>
        eb
          .selectFrom('workspace_builds as nb')
          .select((nb) => nb.fn.max('nb.build_number').as('n'))
          .whereRef('nb.workspace_id', '=', 'w.id'),
      )
      // A finished job; a build still in flight is left alone.
      .where((eb) => eb.or([eb('j.completed_at', 'is not', null), eb('j.error', '<>', '')]))
      .where(sql<SqlBool>`not (b.transition = 'delete' and j.completed_at is not null and j.error = '' and j.canceled_at is null)`)
      .where(due)
      .orderBy('w.id')
      .execute()
  );
}
