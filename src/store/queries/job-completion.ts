import {
  sql,
  type Compilable,
  type Insertable,
  type Kysely,
  type OperationNodeSource,
  type QueryCreator,
  type RawBuilder,
  type SqlBool,
  type Updateable,
} from 'kysely';
import { joined } from '../joined-rows.js';
import type { DialectName } from '../database.js';
import { asCtes, type Write } from '../write-together.js';
import type { Database, TemplateVersionTable, WorkspaceAgentTable, WorkspaceBuildTable } from '../schema.js';
import type { FileRow } from './files.js';
import type { JobLogLine, ProvisionerJobRow, WorkspaceResourceRow } from './provisioner-jobs.js';
import type { TemplateRow } from './templates.js';
import type { WorkspaceBuildRow, WorkspaceRow } from './workspaces.js';

/** What a provisioner daemon needs to run a job besides the job row, read in one place. */
export interface JobContext {
  readonly file: FileRow | undefined;
  readonly initiatorUsername: string | undefined;
  /** For workspace builds: the build, its workspace and its template; to run it, the owner's username and the version's variables. */
  readonly build?: {
    readonly row: WorkspaceBuildRow | undefined;
    readonly workspace: WorkspaceRow | undefined;
    readonly ownerUsername: string | undefined;
    readonly template: TemplateRow | undefined;
    readonly versionVariables: string | undefined;
    /** The owner's own quiet-hours schedule, empty when they chose none: it bounds a start's max deadline. */
    readonly ownerQuietHours?: string | undefined;
  };
}

/**
 * Why a job's context is read: to run the job (file, names, variables, and the template, whose
 * schedule its end is recorded with), or only to record its end (when what the claim read is gone).
 */
export type JobContextPurpose = 'run' | 'record';

/** A job row with its context, as one read finds them. */
export interface JobWithContext {
  readonly job: ProvisionerJobRow;
  readonly context: JobContext;
}

/**
 * Reads a job with its file, initiator and, for a build, what the build is of, in one statement:
 * each is one row found from the job, so they are outer joins of it. For `record`, only the build,
 * its workspace and its template: the file (the whole archive) and the names are left out.
 */
export async function readJobWithContext(
  db: Kysely<Database>,
  jobId: string,
  purpose: JobContextPurpose,
): Promise<JobWithContext | undefined> {
  const { rows } = await sql<Record<string, unknown>>`select ${contextColumns(purpose)}
    from "provisioner_jobs" as "j" ${contextJoins(purpose)}
    where "j"."id" = ${jobId}`.execute(db);
  return rows[0] && splitJobWithContext(rows[0]);
}

/**
 * Claims the next job with `claim` (an update returning the claimed row) and reads it with what
 * running it needs. On PostgreSQL that is one statement, the claim a data-modifying CTE the read
 * joins from: the claim and the read are on the way of every job, one round trip after the other.
 */
export async function claimJobToRun(
  db: Kysely<Database>,
  dialect: DialectName,
  claim: Compilable<ProvisionerJobRow> & OperationNodeSource,
): Promise<JobWithContext | undefined> {
  if (dialect !== 'postgres') {
    const job = (await db.executeQuery(claim.compile())).rows[0];
    return job && readJobWithContext(db, job.id, 'run');
  }
  const { rows } = await sql<Record<string, unknown>>`with "claimed" as (${claim})
    select ${contextColumns('run')} from "claimed" as "j" ${contextJoins('run')}`.execute(db);
  return rows[0] && splitJobWithContext(rows[0]);
}

function contextColumns(purpose: JobContextPurpose) {
  const { job, build, workspace, template, file } = joined;
  return purpose === 'run'
    ? sql`${job.columns}, ${file.columns}, ${build.columns}, ${workspace.columns}, ${template.columns},
        "iu"."username" as "initiator_username", "u"."username" as "owner_username", "v"."variables" as "version_variables",
        "u"."quiet_hours_schedule" as "owner_quiet_hours"`
    : sql`${job.columns}, ${build.columns}, ${workspace.columns}, ${template.columns}, "u"."quiet_hours_schedule" as "owner_quiet_hours"`;
}

function contextJoins(purpose: JobContextPurpose) {
  return purpose === 'run'
    ? sql`left join "files" as "f" on "f"."id" = "j"."file_id"
        left join "users" as "iu" on "iu"."id" = "j"."initiator_id" and "iu"."deleted" = 0
        left join "workspace_builds" as "b" on "b"."job_id" = "j"."id"
        left join "workspaces" as "w" on "w"."id" = "b"."workspace_id"
        left join "users" as "u" on "u"."id" = "w"."owner_id" and "u"."deleted" = 0
        left join "template_versions" as "v" on "v"."id" = "b"."template_version_id"
        left join "templates" as "t" on "t"."id" = "w"."template_id"`
    : sql`left join "workspace_builds" as "b" on "b"."job_id" = "j"."id"
        left join "workspaces" as "w" on "w"."id" = "b"."workspace_id"
        left join "users" as "u" on "u"."id" = "w"."owner_id" and "u"."deleted" = 0
        left join "templates" as "t" on "t"."id" = "w"."template_id"`;
}

function splitJobWithContext(row: Readonly<Record<string, unknown>>): JobWithContext | undefined {
  const { job, build, workspace, template, file } = joined;
  const found = job.take(row);
  if (!found) return undefined;
  const named = (column: string) => (typeof row[column] === 'string' ? (row[column] as string) : undefined);
  const context: JobContext = {
    file: file.take(row),
    initiatorUsername: named('initiator_username'),
    ...(found.type === 'workspace_build' && {
      build: {
        row: build.take(row),
        workspace: workspace.take(row),
        ownerUsername: named('owner_username'),
        template: template.take(row),
        versionVariables: named('version_variables'),
        ownerQuietHours: named('owner_quiet_hours'),
      },
    }),
  };
  return { job: found, context };
}

/** Everything a finished job leaves behind, stored together with its completion. */
export interface JobCompletion {
  readonly now: string;
  /** An import's findings, stored on the version whose job this is. */
  readonly version?: Updateable<TemplateVersionTable> | undefined;
  readonly resources: readonly WorkspaceResourceRow[];
  readonly agents: readonly Insertable<WorkspaceAgentTable>[];
  /** The job's last log lines, which came with its report. */
  readonly logs?: readonly JobLogLine[] | undefined;
  /** A build's state, cost and deadlines; a delete build also deletes its workspace. */
  readonly build?:
    | {
        readonly id: string;
        readonly workspaceId: string;
        readonly changes: Updateable<WorkspaceBuildTable>;
        readonly deletesWorkspace: boolean;
      }
    | undefined;
}

/**
 * What recording a job's end rests on: the job is still held by `workerId` and unfinished, and the
 * rows its results were computed from still have the values they were computed from (the columns
 * named, as read). When the claim's reading is used, that reading is checked here, not read again.
 */
export interface CompletionExpectation {
  readonly workerId: string;
  readonly workspace?: { readonly id: string; readonly values: Partial<WorkspaceRow> } | undefined;
  readonly template?: { readonly id: string; readonly values: Partial<TemplateRow> } | undefined;
}

/**
 * Stores a job's results and marks it completed, all or nothing, if `expected` holds; returns
 * whether it did. On PostgreSQL that is one statement: the job's end is a data-modifying CTE whose
 * condition is the expectation, and every other write is conditional on that end having been
 * written. On SQLite the end is written first in a transaction, the rest only after it.
 */
export async function storeJobCompletion(
  db: Kysely<Database>,
  dialect: DialectName,
  jobId: string,
  completion: JobCompletion,
  expected: CompletionExpectation,
): Promise<boolean> {
  const end = (q: QueryCreator<Database>) =>
    q
      .updateTable('provisioner_jobs')
      .set({ completed_at: completion.now, updated_at: completion.now })
      .where('id', '=', jobId)
      .where('worker_id', '=', expected.workerId)
      .where('completed_at', 'is', null)
      .where(stillAsRead('workspaces', expected.workspace))
      .where(stillAsRead('templates', expected.template));
  if (dialect === 'postgres') {
    const writes = resultWrites(jobId, completion, sql<SqlBool>`exists (select 1 from "ended")`);
    const statement = asCtes(
      db.with('ended', (q) => end(q).returning('id')),
      writes,
    );
    const row = await statement.selectNoFrom(sql<number>`(select count(*) from "ended")`.as('ended')).executeTakeFirst();
    return Number(row?.ended) === 1;
  }
  return db.transaction().execute(async (trx) => {
    const ended = await end(trx).executeTakeFirst();
    if (Number(ended.numUpdatedRows) !== 1) return false;
    for (const write of resultWrites(jobId, completion)) await write(trx).execute();
    return true;
  });
}

/** That a row still has these values (null-safe), as a condition on the job's end; true when nothing is expected. */
function stillAsRead(table: 'workspaces' | 'templates', expected: { readonly id: string; readonly values: object } | undefined) {
  if (!expected) return sql<SqlBool>`true`;
  const columns = Object.entries(expected.values).map(([column, value]: [string, unknown]) =>
    value === null ? sql`${sql.ref(`expected.${column}`)} is null` : sql`${sql.ref(`expected.${column}`)} = ${value}`,
  );
  const holds = sql.join([sql`"expected"."id" = ${expected.id}`, ...columns], sql` and `);
  return sql<SqlBool>`exists (select 1 from ${sql.table(table)} as "expected" where ${holds})`;
}

/**
 * A job's results as writes: its last log lines, an import's findings, resources, agents, and a
 * build's changes. With `ifEnded`, each write happens only under that condition (PostgreSQL's
 * statement: only if the end was written); inserts then select their rows from one JSON
 * parameter, typed by the table's own row type.
 */
function resultWrites(jobId: string, completion: JobCompletion, ifEnded?: RawBuilder<SqlBool>): Write[] {
  const { now, version, build } = completion;
  const onlyIfEnded = <Q extends { where(condition: RawBuilder<SqlBool>): Q }>(query: Q) => (ifEnded ? query.where(ifEnded) : query);
  const writes: Write[] = [];
  const logs = (completion.logs ?? []).map((log) => ({ ...log, job_id: jobId }));
  if (logs.length > 0) writes.push(insertRows('provisioner_job_logs', logs, ifEnded));
  if (version) writes.push((q) => onlyIfEnded(q.updateTable('template_versions').set(version).where('job_id', '=', jobId)));
  if (completion.resources.length > 0) writes.push(insertRows('workspace_resources', completion.resources, ifEnded));
  if (completion.agents.length > 0) writes.push(insertRows('workspace_agents', completion.agents, ifEnded));
  if (build) {
    writes.push((q) => onlyIfEnded(q.updateTable('workspace_builds').set(build.changes).where('id', '=', build.id)));
    if (build.deletesWorkspace) {
      writes.push((q) => onlyIfEnded(q.updateTable('workspaces').set({ deleted: 1, updated_at: now }).where('id', '=', build.workspaceId)));
    }
  }
  return writes;
}

/** An insert of rows (all with the same columns), under `ifEnded` when given. */
function insertRows<T extends 'provisioner_job_logs' | 'workspace_resources' | 'workspace_agents'>(
  table: T,
  rows: readonly Insertable<Database[T]>[],
  ifEnded: RawBuilder<SqlBool> | undefined,
): Write {
  if (!ifEnded) return (q) => q.insertInto(table).values(rows as never);
  const columns = Object.keys(rows[0] ?? {});
  const selected = sql.join(columns.map((column) => sql.ref(column)));
  return (q) =>
    q
      .insertInto(table)
      .columns(columns as never)
      .expression(
        sql`select ${selected} from jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(rows)}) where ${ifEnded}`,
      );
}

/** Keeps what a failed build did create, so the next build can clean it up. */
export async function keepFailedBuildState(db: Kysely<Database>, jobId: string, state: Buffer): Promise<void> {
  await db.updateTable('workspace_builds').set({ provisioner_state: state }).where('job_id', '=', jobId).execute();
}

/** The workspace a build job belongs to, if it is a build job. */
export async function workspaceIdOfJob(db: Kysely<Database>, jobId: string): Promise<string | undefined> {
  return (await db.selectFrom('workspace_builds').select('workspace_id').where('job_id', '=', jobId).executeTakeFirst())?.workspace_id;
}

/** The workspaces (as the policy needs them) that build jobs belong to, by job id. */
export async function workspacesOfBuildJobs(
  db: Kysely<Database>,
  jobIds: readonly string[],
): Promise<Map<string, Pick<WorkspaceRow, 'id' | 'organization_id' | 'owner_id' | 'dormant_at' | 'user_acl' | 'group_acl'>>> {
  if (jobIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('workspace_builds as b')
    .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
    .select(['b.job_id', 'w.id', 'w.organization_id', 'w.owner_id', 'w.dormant_at', 'w.user_acl', 'w.group_acl'])
    .where('b.job_id', 'in', [...jobIds])
    .execute();
  return new Map(rows.map(({ job_id, ...workspace }) => [job_id, workspace]));
}
