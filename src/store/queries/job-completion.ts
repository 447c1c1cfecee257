import type { Insertable, Kysely, QueryCreator, Updateable } from 'kysely';
import type { DialectName } from '../database.js';
import type { Database, TemplateVersionTable, WorkspaceAgentTable, WorkspaceBuildTable } from '../schema.js';
import type { FileRow } from './files.js';
import { insertResources, type ProvisionerJobRow, type WorkspaceResourceRow } from './provisioner-jobs.js';
import type { TemplateRow } from './templates.js';
import type { WorkspaceBuildRow, WorkspaceRow } from './workspaces.js';

/** What a provisioner daemon needs to run a job besides the job row, read in one place. */
export interface JobContext {
  readonly file: FileRow | undefined;
  readonly initiatorUsername: string | undefined;
  /** For workspace builds: the build, its workspace, the owner's username, the template and the version's variables. */
  readonly build?: {
    readonly row: WorkspaceBuildRow | undefined;
    readonly workspace: WorkspaceRow | undefined;
    readonly ownerUsername: string | undefined;
    readonly template: TemplateRow | undefined;
    readonly versionVariables: string | undefined;
  };
}

/** Why a job's context is read: to run the job (everything), or to record a finished build (no file, no names). */
export type JobContextPurpose = 'run' | 'record';

/**
 * Reads a job's file, initiator and, for a build, what the build is of. For `record`, only the
 * build, its workspace and its template: the file (the whole archive) and the names are left out.
 */
export async function readJobContext(db: Kysely<Database>, job: ProvisionerJobRow, purpose: JobContextPurpose): Promise<JobContext> {
  const run = purpose === 'run';
  const username = (id: string) =>
    db
      .selectFrom('users')
      .select('username')
      .where('id', '=', id)
      .where('deleted', '=', 0)
      .executeTakeFirst()
      .then((row) => row?.username);
  const file = run ? db.selectFrom('files').selectAll().where('id', '=', job.file_id).executeTakeFirst() : undefined;
  const initiatorUsername = run ? username(job.initiator_id) : undefined;
  if (job.type !== 'workspace_build') return { file: await file, initiatorUsername: await initiatorUsername };
  // Each part is found from the job id alone, so they are asked side by side: on PostgreSQL one
  // round trip of waiting instead of one after another.
  const builds = db.selectFrom('workspace_builds as b').where('b.job_id', '=', job.id);
  const [fileRow, initiator, row, workspace, template, version, owner] = await Promise.all([
    file,
    initiatorUsername,
    builds.selectAll('b').executeTakeFirst(),
    builds.innerJoin('workspaces as w', 'w.id', 'b.workspace_id').selectAll('w').executeTakeFirst(),
    builds
      .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
      .innerJoin('templates as t', 't.id', 'w.template_id')
      .selectAll('t')
      .executeTakeFirst(),
    run ? builds.innerJoin('template_versions as v', 'v.id', 'b.template_version_id').select('v.variables').executeTakeFirst() : undefined,
    run
      ? builds
          .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
          .innerJoin('users as u', 'u.id', 'w.owner_id')
          .where('u.deleted', '=', 0)
          .select('u.username')
          .executeTakeFirst()
      : undefined,
  ]);
  return {
    file: fileRow,
    initiatorUsername: initiator,
    build: {
      row,
      workspace: row ? workspace : undefined,
      ownerUsername: workspace && run ? owner?.username : undefined,
      template: workspace ? template : undefined,
      versionVariables: row ? version?.variables : undefined,
    },
  };
}

/** Everything a finished job leaves behind, stored together with its completion. */
export interface JobCompletion {
  readonly now: string;
  /** An import's findings, stored on the version whose job this is. */
  readonly version?: Updateable<TemplateVersionTable> | undefined;
  readonly resources: readonly WorkspaceResourceRow[];
  readonly agents: readonly Insertable<WorkspaceAgentTable>[];
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

/** Stores a job's results and marks it completed, in one transaction. */
export async function storeJobCompletion(
  db: Kysely<Database>,
  dialect: DialectName,
  jobId: string,
  completion: JobCompletion,
): Promise<void> {
  const { now } = completion;
  if (dialect === 'postgres') {
    await storeJobCompletionInOneStatement(db, jobId, completion);
    return;
  }
  await db.transaction().execute(async (trx) => {
    if (completion.version) await trx.updateTable('template_versions').set(completion.version).where('job_id', '=', jobId).execute();
    await insertResources(trx, completion.resources);
    if (completion.agents.length > 0)
      await trx
        .insertInto('workspace_agents')
        .values([...completion.agents])
        .execute();
    const build = completion.build;
    if (build) {
      await trx.updateTable('workspace_builds').set(build.changes).where('id', '=', build.id).execute();
      if (build.deletesWorkspace) {
        await trx.updateTable('workspaces').set({ deleted: 1, updated_at: now }).where('id', '=', build.workspaceId).execute();
      }
    }
    await trx
      .updateTable('provisioner_jobs')
      .set({ completed_at: now, updated_at: now })
      .where('id', '=', jobId)
      .where('completed_at', 'is', null)
      .execute();
  });
}

/**
 * The same writes on PostgreSQL as one statement: each write a data-modifying CTE of the job's
 * update, which is atomic by itself and costs one round trip instead of a transaction's six.
 * Foreign keys (an agent's resource) are checked at the end of the statement, when all are in.
 */
async function storeJobCompletionInOneStatement(db: Kysely<Database>, jobId: string, completion: JobCompletion): Promise<void> {
  const { now, version, build } = completion;
  let writes: QueryCreator<Database> = db;
  if (version)
    writes = writes.with('version', (q) => q.updateTable('template_versions').set(version).where('job_id', '=', jobId).returning('id'));
  if (completion.resources.length > 0) {
    writes = writes.with('resources', (q) =>
      q
        .insertInto('workspace_resources')
        .values([...completion.resources])
        .returning('id'),
    );
  }
  if (completion.agents.length > 0) {
    writes = writes.with('agents', (q) =>
      q
        .insertInto('workspace_agents')
        .values([...completion.agents])
        .returning('id'),
    );
  }
  if (build) {
    writes = writes.with('build', (q) => q.updateTable('workspace_builds').set(build.changes).where('id', '=', build.id).returning('id'));
    if (build.deletesWorkspace) {
      writes = writes.with('workspace', (q) =>
        q.updateTable('workspaces').set({ deleted: 1, updated_at: now }).where('id', '=', build.workspaceId).returning('id'),
      );
    }
  }
  await writes
    .updateTable('provisioner_jobs')
    .set({ completed_at: now, updated_at: now })
    .where('id', '=', jobId)
    .where('completed_at', 'is', null)
    .execute();
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
): Promise<Map<string, Pick<WorkspaceRow, 'id' | 'organization_id' | 'owner_id' | 'dormant_at'>>> {
  if (jobIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('workspace_builds as b')
    .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
    .select(['b.job_id', 'w.id', 'w.organization_id', 'w.owner_id', 'w.dormant_at'])
    .where('b.job_id', 'in', [...jobIds])
    .execute();
  return new Map(rows.map(({ job_id, ...workspace }) => [job_id, workspace]));
}
