import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { Database, WorkspaceUsageMinuteTable } from '../schema.js';

/** One minute of use to record. */
export type UsageMinute = WorkspaceUsageMinuteTable;

/**
 * What an insights query looks at: minutes since the epoch in `[from, to)`, of the templates
 * listed (`all`: every template, also deleted ones).
 */
export interface UsageScope {
  readonly from: number;
  readonly to: number;
  readonly templateIds: readonly string[] | 'all';
}

type UsageBuilder = ExpressionBuilder<Database, 'workspace_usage_minutes'>;

/** The scope as a condition on `workspace_usage_minutes`. */
function inScope(eb: UsageBuilder, scope: UsageScope) {
  const range = [eb('workspace_usage_minutes.minute', '>=', scope.from), eb('workspace_usage_minutes.minute', '<', scope.to)];
  if (scope.templateIds === 'all') return eb.and(range);
  if (scope.templateIds.length === 0) return eb.lit(false);
  return eb.and([...range, eb('workspace_usage_minutes.template_id', 'in', [...scope.templateIds])]);
}

/**
 * Records minutes of use; a minute already recorded stays one, and takes the newer latency (when
 * one was reported) and the newer app name.
 */
export async function recordUsageMinutes(db: Kysely<Database>, rows: readonly UsageMinute[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('workspace_usage_minutes')
    .values([...rows])
    .onConflict((oc) =>
      oc.columns(['user_id', 'template_id', 'minute', 'kind', 'app_slug']).doUpdateSet({
        latency_ms: sql<number>`CASE WHEN excluded.latency_ms > 0 THEN excluded.latency_ms ELSE workspace_usage_minutes.latency_ms END`,
        app_display_name: (eb) => eb.ref('excluded.app_display_name'),
        app_icon: (eb) => eb.ref('excluded.app_icon'),
      }),
    )
    .execute();
}

/**
 * Distinct users with any use per day, days counted in whole days since the epoch in the
 * offset given (minutes east of UTC). Days nobody used are absent.
 */
export async function dailyActiveUsers(
  db: Kysely<Database>,
  scope: UsageScope,
  offsetMinutes: number,
): Promise<{ day: number; amount: number }[]> {
  // Literals, not parameters: PostgreSQL matches the grouped expression to the selected one by its text.
  const day = sql<number>`(workspace_usage_minutes.minute + ${sql.lit(Math.trunc(offsetMinutes))}) / 1440`;
  const rows = await db
    .selectFrom('workspace_usage_minutes')
    .select((eb) => [day.as('day'), eb.fn.count<number>('workspace_usage_minutes.user_id').distinct().as('amount')])
    .where((eb) => inScope(eb, scope))
    .groupBy(day)
    .orderBy(day)
    .execute();
  return rows.map((row) => ({ day: Number(row.day), amount: Number(row.amount) }));
}

/** Distinct users per interval of `intervalMinutes` from the scope's start (interval 0 first); empty intervals are absent. */
export async function activeUsersByInterval(
  db: Kysely<Database>,
  scope: UsageScope,
  intervalMinutes: number,
): Promise<{ index: number; users: number }[]> {
  // Literals, not parameters: PostgreSQL matches the grouped expression to the selected one by its text.
  const index = sql<number>`(workspace_usage_minutes.minute - ${sql.lit(Math.trunc(scope.from))}) / ${sql.lit(Math.trunc(intervalMinutes))}`;
  const rows = await db
    .selectFrom('workspace_usage_minutes')
    .select((eb) => [index.as('index'), eb.fn.count<number>('workspace_usage_minutes.user_id').distinct().as('users')])
    .where((eb) => inScope(eb, scope))
    .groupBy(index)
    .execute();
  return rows.map((row) => ({ index: Number(row.index), users: Number(row.users) }));
}

/** Distinct users over the whole scope, and the templates that were used in it. */
export async function activeUsersInRange(db: Kysely<Database>, scope: UsageScope): Promise<{ users: number; templateIds: string[] }> {
  const [total, templates] = await Promise.all([
    db
      .selectFrom('workspace_usage_minutes')
      .select((eb) => eb.fn.count<number>('workspace_usage_minutes.user_id').distinct().as('users'))
      .where((eb) => inScope(eb, scope))
      .executeTakeFirst(),
    db
      .selectFrom('workspace_usage_minutes')
      .select('workspace_usage_minutes.template_id')
      .distinct()
      .where((eb) => inScope(eb, scope))
      .orderBy('workspace_usage_minutes.template_id')
      .execute(),
  ]);
  return { users: Number(total?.users ?? 0), templateIds: templates.map((row) => row.template_id) };
}

/** Minutes of each built-in kind of session (everything but apps), per template. */
export async function sessionMinutes(
  db: Kysely<Database>,
  scope: UsageScope,
): Promise<{ kind: string; templateId: string; minutes: number }[]> {
  const rows = await db
    .selectFrom('workspace_usage_minutes')
    .select((eb) => ['workspace_usage_minutes.kind', 'workspace_usage_minutes.template_id', eb.fn.countAll<number>().as('minutes')])
    .where((eb) => inScope(eb, scope))
    .where('workspace_usage_minutes.kind', '<>', 'app')
    .groupBy(['workspace_usage_minutes.kind', 'workspace_usage_minutes.template_id'])
    .execute();
  return rows.map((row) => ({ kind: row.kind, templateId: row.template_id, minutes: Number(row.minutes) }));
}

/** Use of each template app: minutes, and runs of use (consecutive 30-minute buckets of one user count once). */
export async function appUsage(
  db: Kysely<Database>,
  scope: UsageScope,
): Promise<{ slug: string; displayName: string; icon: string; templateIds: string[]; minutes: number; runs: number }[]> {
  const apps = db
    .selectFrom('workspace_usage_minutes')
    .where((eb) => inScope(eb, scope))
    .where('workspace_usage_minutes.kind', '=', 'app');
  const [totals, perTemplate, runs, names] = await Promise.all([
    apps
      .select((eb) => ['workspace_usage_minutes.app_slug', eb.fn.countAll<number>().as('minutes')])
      .groupBy('workspace_usage_minutes.app_slug')
      .orderBy('workspace_usage_minutes.app_slug')
      .execute(),
    apps
      .select(['workspace_usage_minutes.app_slug', 'workspace_usage_minutes.template_id'])
      .distinct()
      .orderBy('workspace_usage_minutes.template_id')
      .execute(),
    db
      .with('buckets', () =>
        apps
          .select([
            'workspace_usage_minutes.user_id',
            'workspace_usage_minutes.app_slug',
            sql<number>`workspace_usage_minutes.minute / 30`.as('bucket'),
          ])
          .distinct(),
      )
      .selectFrom('buckets as b')
      .select((eb) => ['b.app_slug', eb.fn.countAll<number>().as('runs')])
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('buckets as previous')
              .select(sql`1`.as('one'))
              .whereRef('previous.user_id', '=', 'b.user_id')
              .whereRef('previous.app_slug', '=', 'b.app_slug')
              .where(sql<boolean>`previous.bucket = b.bucket - 1`),
          ),
        ),
      )
      .groupBy('b.app_slug')
      .execute(),
    // The name and icon of each app at its latest use.
    apps
      .select(['workspace_usage_minutes.app_slug', 'workspace_usage_minutes.app_display_name', 'workspace_usage_minutes.app_icon'])
      .where(({ eb, selectFrom }) =>
        eb(
          'workspace_usage_minutes.minute',
          '=',
          selectFrom('workspace_usage_minutes as newest')
            .select((inner) => inner.fn.max('newest.minute').as('minute'))
            .where('newest.kind', '=', 'app')
            .whereRef('newest.app_slug', '=', 'workspace_usage_minutes.app_slug'),
        ),
      )
      .execute(),
  ]);
  return totals.map((row) => {
    const name = names.find((candidate) => candidate.app_slug === row.app_slug);
    return {
      slug: row.app_slug,
      displayName: name?.app_display_name || row.app_slug,
      icon: name?.app_icon ?? '',
      templateIds: perTemplate.filter((t) => t.app_slug === row.app_slug).map((t) => t.template_id),
      minutes: Number(row.minutes),
      runs: Number(runs.find((run) => run.app_slug === row.app_slug)?.runs ?? 0),
    };
  });
}

/** Users with any use in the scope, with the distinct minutes they used (minutes of several templates at once count once). */
export async function userActivity(
  db: Kysely<Database>,
  scope: UsageScope,
): Promise<{ userId: string; username: string; avatarUrl: string; minutes: number; templateIds: string[] }[]> {
  const [users, templates] = await Promise.all([
    db
      .selectFrom('workspace_usage_minutes')
      .innerJoin('users', 'users.id', 'workspace_usage_minutes.user_id')
      .select((eb) => [
        'users.id',
        'users.username',
        'users.avatar_url',
        eb.fn.count<number>('workspace_usage_minutes.minute').distinct().as('minutes'),
      ])
      .where((eb) => inScope(eb, scope))
      .groupBy(['users.id', 'users.username', 'users.avatar_url'])
      .orderBy('minutes', 'desc')
      .orderBy('users.username')
      .execute(),
    usedTemplatesByUser(db, scope),
  ]);
  return users.map((row) => ({
    userId: row.id,
    username: row.username,
    avatarUrl: row.avatar_url,
    minutes: Number(row.minutes),
    templateIds: templates.get(row.id) ?? [],
  }));
}

/**
 * Users with any use in the scope, by username, with the 50th and 95th percentiles (continuous,
 * as PostgreSQL's percentile_cont) of the latencies reported in the minutes they used; null when
 * none was reported.
 */
export async function userLatency(
  db: Kysely<Database>,
  scope: UsageScope,
): Promise<{ userId: string; username: string; avatarUrl: string; p50: number | null; p95: number | null; templateIds: string[] }[]> {
  // Percentiles by rank, portable to both engines: with n values ranked 0..n-1, the p-th lies at
  // rank p(n-1)/100, between the values ranked floor and floor + 1. Ranks and weights stay integers.
  const percentile = (p: number) =>
    sql<number>`SUM(CASE
      WHEN ranked.rank = (${sql.lit(p)} * (ranked.n - 1)) / 100 THEN ranked.latency * (100 - (${sql.lit(p)} * (ranked.n - 1)) % 100)
      WHEN ranked.rank = (${sql.lit(p)} * (ranked.n - 1)) / 100 + 1 THEN ranked.latency * ((${sql.lit(p)} * (ranked.n - 1)) % 100)
      ELSE 0 END) / 100`;
  const [latencies, users, templates] = await Promise.all([
    db
      .with('per_minute', (qb) =>
        qb
          .selectFrom('workspace_usage_minutes')
          .select((eb) => ['workspace_usage_minutes.user_id', eb.fn.max('workspace_usage_minutes.latency_ms').as('latency')])
          .where((eb) => inScope(eb, scope))
          .where('workspace_usage_minutes.latency_ms', '>', 0)
          .groupBy(['workspace_usage_minutes.user_id', 'workspace_usage_minutes.minute']),
      )
      .with('ranked', (qb) =>
        qb
          .selectFrom('per_minute')
          .select([
            'per_minute.user_id',
            'per_minute.latency',
            sql<number>`ROW_NUMBER() OVER (PARTITION BY per_minute.user_id ORDER BY per_minute.latency) - 1`.as('rank'),
            sql<number>`COUNT(*) OVER (PARTITION BY per_minute.user_id)`.as('n'),
          ]),
      )
      .selectFrom('ranked')
      .select(['ranked.user_id', percentile(50).as('p50'), percentile(95).as('p95')])
      .groupBy('ranked.user_id')
      .execute(),
    db
      .selectFrom('workspace_usage_minutes')
      .innerJoin('users', 'users.id', 'workspace_usage_minutes.user_id')
      .select(['users.id', 'users.username', 'users.avatar_url'])
      .distinct()
      .where((eb) => inScope(eb, scope))
      .orderBy('users.username')
      .execute(),
    usedTemplatesByUser(db, scope),
  ]);
  return users.map((row) => {
    const latency = latencies.find((candidate) => candidate.user_id === row.id);
    return {
      userId: row.id,
      username: row.username,
      avatarUrl: row.avatar_url,
      p50: latency ? Number(latency.p50) : null,
      p95: latency ? Number(latency.p95) : null,
      templateIds: templates.get(row.id) ?? [],
    };
  });
}

async function usedTemplatesByUser(db: Kysely<Database>, scope: UsageScope): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('workspace_usage_minutes')
    .select(['workspace_usage_minutes.user_id', 'workspace_usage_minutes.template_id'])
    .distinct()
    .where((eb) => inScope(eb, scope))
    .orderBy('workspace_usage_minutes.template_id')
    .execute();
  const byUser = new Map<string, string[]>();
  for (const row of rows) byUser.set(row.user_id, [...(byUser.get(row.user_id) ?? []), row.template_id]);
  return byUser;
}

/**
 * How many workspaces use each value of each parameter: the latest build of every live
 * workspace of the templates, when that build was made within `[from, to)` (ISO 8601).
 */
export async function parameterValueCounts(
  db: Kysely<Database>,
  dialect: DialectName,
  range: { readonly from: string; readonly to: string; readonly templateIds: readonly string[] },
): Promise<{ templateId: string; name: string; value: string; count: number }[]> {
  if (range.templateIds.length === 0) return [];
  // The build's parameters are a JSON array of {name, value}: one row per element, by engine.
  const elements =
    dialect === 'postgres'
      ? sql`CROSS JOIN LATERAL jsonb_array_elements(b.rich_parameter_values::jsonb) AS p(element)`
      : sql`CROSS JOIN json_each(b.rich_parameter_values) AS p`;
  const name = dialect === 'postgres' ? sql<string>`p.element->>'name'` : sql<string>`json_extract(p.value, '$.name')`;
  const value = dialect === 'postgres' ? sql<string>`p.element->>'value'` : sql<string>`json_extract(p.value, '$.value')`;
  const result = await sql<{ template_id: string; name: string; value: string; count: number }>`
    SELECT w.template_id AS template_id, ${name} AS name, ${value} AS value, COUNT(*) AS count
    FROM workspaces w
    JOIN workspace_builds b ON b.workspace_id = w.id
    ${elements}
    WHERE w.deleted = 0
      AND w.template_id IN (${sql.join(range.templateIds)})
      AND b.created_at >= ${range.from} AND b.created_at < ${range.to}
      AND b.build_number = (SELECT MAX(latest.build_number) FROM workspace_builds latest WHERE latest.workspace_id = w.id)
    GROUP BY w.template_id, ${name}, ${value}
    ORDER BY 2, 3`.execute(db);
  return result.rows.map((row) => ({
    templateId: row.template_id,
    name: row.name,
    value: String(row.value ?? ''),
    count: Number(row.count),
  }));
}

/** The parameters (JSON) of the active version of each template listed. */
export async function activeVersionParameters(
  db: Kysely<Database>,
  templateIds: readonly string[],
): Promise<{ templateId: string; parameters: string }[]> {
  if (templateIds.length === 0) return [];
  const rows = await db
    .selectFrom('templates')
    .innerJoin('template_versions', 'template_versions.id', 'templates.active_version_id')
    .select(['templates.id', 'template_versions.parameters'])
    .where('templates.id', 'in', [...templateIds])
    .execute();
  return rows.map((row) => ({ templateId: row.id, parameters: row.parameters }));
}

/**
 * How many users had each status at each of the instants given (ISO 8601): a user counts under
 * the status of their latest change at or before the instant. Users written without a history
 * from their creation count from then under their current status, or as active until their
 * first recorded change.
 */
export async function userStatusCounts(
  db: Kysely<Database>,
  instants: readonly string[],
): Promise<{ instant: string; status: string; count: number }[]> {
  if (instants.length === 0) return [];
  const days = sql.join(
    instants.map((instant) => sql`SELECT CAST(${instant} AS TEXT) AS instant`),
    sql` UNION ALL `,
  );
  const result = await sql<{ instant: string; status: string; count: number }>`
    WITH days AS (${days}),
    changes AS (
      SELECT user_id, changed_at, new_status FROM user_status_changes
      UNION ALL
      SELECT u.id, u.created_at,
          CASE WHEN EXISTS (SELECT 1 FROM user_status_changes c WHERE c.user_id = u.id) THEN 'active' ELSE u.status END
        FROM users u
        WHERE NOT EXISTS (SELECT 1 FROM user_status_changes c WHERE c.user_id = u.id AND c.changed_at <= u.created_at)
      UNION ALL
      SELECT u.id, u.updated_at, 'deleted' FROM users u
        WHERE u.deleted = 1 AND NOT EXISTS (SELECT 1 FROM user_status_changes c WHERE c.user_id = u.id)
    )
    SELECT d.instant AS instant, c.new_status AS status, COUNT(*) AS count
    FROM days d
    JOIN changes c ON c.changed_at <= d.instant
    WHERE NOT EXISTS (
      SELECT 1 FROM changes later
      WHERE later.user_id = c.user_id AND later.changed_at <= d.instant AND later.changed_at > c.changed_at
    )
    GROUP BY d.instant, c.new_status`.execute(db);
  return result.rows.map((row) => ({ instant: row.instant, status: row.status, count: Number(row.count) }));
}
