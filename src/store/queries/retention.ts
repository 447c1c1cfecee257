import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * The purges of rows past their retention. Each call deletes at most `limit` rows in one short
 * statement (`DELETE ... WHERE id IN (SELECT id ... LIMIT n)`), so that no purge holds locks for
 * long; the caller repeats it until a call deletes fewer than `limit`. Times are ISO 8601 in UTC,
 * as stored, so they compare as text.
 */

/** Deletes up to `limit` audit entries written before `before`. */
export async function deleteAuditLogsBefore(db: Kysely<Database>, before: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('audit_logs')
    .where('id', 'in', (eb) => eb.selectFrom('audit_logs').select('id').where('time', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes up to `limit` connection log rows of connections opened before `before`. */
export async function deleteConnectionLogsBefore(db: Kysely<Database>, before: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('connection_logs')
    .where('id', 'in', (eb) => eb.selectFrom('connection_logs').select('id').where('connect_time', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes up to `limit` API keys (sessions and tokens) that expired before `before`. */
export async function deleteApiKeysExpiredBefore(db: Kysely<Database>, before: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('api_keys')
    .where('id', 'in', (eb) => eb.selectFrom('api_keys').select('id').where('expires_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Deletes up to `limit` log lines of agents last connected (or, never connected, made) before
 * `before` whose build is not their workspace's latest: the latest build's logs stay whatever
 * their age, since that is the build a user looks at.
 */
export async function deleteStaleAgentLogs(db: Kysely<Database>, before: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('workspace_agent_logs')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('workspace_agent_logs as l')
        .select('l.id')
        .where('l.agent_id', 'in', (inner) =>
          inner
            .selectFrom('workspace_agents as a')
            .innerJoin('workspace_resources as r', 'r.id', 'a.resource_id')
            .innerJoin('workspace_builds as b', 'b.job_id', 'r.job_id')
            .select('a.id')
            .where((w) => w(w.fn.coalesce('a.last_connected_at', 'a.created_at'), '<', before))
            .where((w) =>
              w.exists(
                w
                  .selectFrom('workspace_builds as newer')
                  .select('newer.id')
                  .whereRef('newer.workspace_id', '=', 'b.workspace_id')
                  .whereRef('newer.build_number', '>', 'b.build_number'),
              ),
            ),
        )
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Deletes up to `limit` log lines of provisioner jobs that finished before `before` and are
 * neither their workspace's latest build nor their template's active version: those are the
 * logs a user still opens.
 */
export async function deleteStaleJobLogs(db: Kysely<Database>, before: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('provisioner_job_logs')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('provisioner_job_logs as l')
        .select('l.id')
        .where('l.job_id', 'in', (jobs) =>
          jobs
            .selectFrom('provisioner_jobs as j')
            .select('j.id')
            .where('j.completed_at', 'is not', null)
            .where('j.completed_at', '<', before)
            .where((w) =>
              w.not(
                w.exists(
                  w
                    .selectFrom('workspace_builds as b')
                    .select('b.id')
                    .whereRef('b.job_id', '=', 'j.id')
                    .where((n) =>
                      n.not(
                        n.exists(
                          n
                            .selectFrom('workspace_builds as newer')
                            .select('newer.id')
                            .whereRef('newer.workspace_id', '=', 'b.workspace_id')
                            .whereRef('newer.build_number', '>', 'b.build_number'),
                        ),
                      ),
                    ),
                ),
              ),
            )
            .where((w) =>
              w.not(
                w.exists(
                  w
                    .selectFrom('template_versions as v')
                    .innerJoin('templates as t', 't.active_version_id', 'v.id')
                    .select('v.id')
                    .whereRef('v.job_id', '=', 'j.id'),
                ),
              ),
            ),
        )
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Deletes up to `limit` per-minute usage records of minutes before `beforeMinute` (minutes since
 * the Unix epoch). The table's key is five columns, compared as one row value (PostgreSQL, and
 * SQLite since 3.15).
 */
export async function deleteUsageMinutesBefore(db: Kysely<Database>, beforeMinute: number, limit: number): Promise<number> {
  const result = await sql`
    DELETE FROM workspace_usage_minutes
    WHERE (user_id, template_id, minute, kind, app_slug) IN (
      SELECT user_id, template_id, minute, kind, app_slug FROM workspace_usage_minutes WHERE minute < ${beforeMinute} LIMIT ${limit}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
