import type { Insertable, Kysely, Updateable } from 'kysely';
import type { DialectName } from '../database.js';
import { writeTogether, type Write } from '../write-together.js';
import type { Database, TemplateVersionTable, WorkspaceAgentTable, WorkspaceBuildTable } from '../schema.js';
import type { FileRow } from './files.js';
import type { ProvisionerJobRow, WorkspaceResourceRow } from './provisioner-jobs.js';
import type { TemplateRow } from './templates.js';
import type { WorkspaceBuildRow, WorkspaceRow } from './workspaces.js';

/** What a provisioner daemon needs to run a job besides the job row, read in one place. */
export interface JobContext {
  readonly file: FileRow | undefined;
  readonly initiatorUsername: string | undefined;
  /** For workspace builds: the build and its workspace; to run it, the owner's username and the version's variables; to record it, the template. */
  readonly build?: {
    readonly row: WorkspaceBuildRow | undefined;
    readonly workspace: WorkspaceRow | undefined;
    readonly ownerUsername: string | undefined;
    readonly template: TemplateRow | undefined;
    readonly versionVariables: string | undefined;
  };
}

/** Why a job's context is read: to run the job (file, names, variables), or to record a finished build (its template's schedule rules). */
export type JobContextPurpose = 'run' | 'record';

/**
 * Reads a job's file, initiator and, for a build, what the build is of. For `record`, only the
 * build, its workspace and its template: the file (the whole archive) and the names are left out,
 * and running needs no template.
 * Each query is found from the job alone, so they are asked side by side (on PostgreSQL one round
 * trip of waiting), and what one row can carry rides along with it: the initiator's name with the
 * file, the owner's name and the version's variables with the workspace.
 */
export async function readJobContext(db: Kysely<Database>, job: ProvisionerJobRow, purpose: JobContextPurpose): Promise<JobContext> {
  const run = purpose === 'run';
  const file = run
    ? db
        .selectFrom('files')
        .selectAll('files')
        .select((eb) =>
          eb.selectFrom('users').select('username').where('id', '=', job.initiator_id).where('deleted', '=', 0).as('initiator_username'),
        )
        .where('files.id', '=', job.file_id)
        .executeTakeFirst()
        .then((row) => {
          if (!row) return { file: undefined, initiatorUsername: undefined };
          const { initiator_username: initiatorUsername, ...file } = row;
          return { file, initiatorUsername: initiatorUsername ?? undefined };
        })
    : undefined;
  if (job.type !== 'workspace_build') return { file: undefined, initiatorUsername: undefined, ...(await file) };
  const builds = db.selectFrom('workspace_builds as b').where('b.job_id', '=', job.id);
  const workspaces = builds.innerJoin('workspaces as w', 'w.id', 'b.workspace_id');
  const [named, row, found, template] = await Promise.all([
    file,
    builds.selectAll('b').executeTakeFirst(),
    run
      ? workspaces
          .leftJoin('users as u', (join) => join.onRef('u.id', '=', 'w.owner_id').on('u.deleted', '=', 0))
          .leftJoin('template_versions as v', 'v.id', 'b.template_version_id')
          .selectAll('w')
          .select(['u.username as owner_username', 'v.variables as version_variables'])
          .executeTakeFirst()
          .then((joined) => {
            if (!joined) return undefined;
            const { owner_username: ownerUsername, version_variables: versionVariables, ...workspace } = joined;
            return { workspace, ownerUsername: ownerUsername ?? undefined, versionVariables: versionVariables ?? undefined };
          })
      : workspaces
          .selectAll('w')
          .executeTakeFirst()
          .then((workspace) => workspace && { workspace, ownerUsername: undefined, versionVariables: undefined }),
    run ? undefined : workspaces.innerJoin('templates as t', 't.id', 'w.template_id').selectAll('t').executeTakeFirst(),
  ]);
  // The workspace is found through the build, so there is a build wherever there is a workspace.
  return {
    file: named?.file,
    initiatorUsername: named?.initiatorUsername,
    build: {
      row,
      workspace: found?.workspace,
      ownerUsername: found?.ownerUsername,
      template: found ? template : undefined,
      versionVariables: found?.versionVariables,
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

/** Stores a job's results and marks it completed, all or nothing. */
export async function storeJobCompletion(
  db: Kysely<Database>,
  dialect: DialectName,
  jobId: string,
  completion: JobCompletion,
): Promise<void> {
  const { now, version, build } = completion;
  const writes: Write[] = [];
  if (version) writes.push((q) => q.updateTable('template_versions').set(version).where('job_id', '=', jobId));
  if (completion.resources.length > 0) writes.push((q) => q.insertInto('workspace_resources').values([...completion.resources]));
  if (completion.agents.length > 0) writes.push((q) => q.insertInto('workspace_agents').values([...completion.agents]));
  if (build) {
    writes.push((q) => q.updateTable('workspace_builds').set(build.changes).where('id', '=', build.id));
    if (build.deletesWorkspace) {
      writes.push((q) => q.updateTable('workspaces').set({ deleted: 1, updated_at: now }).where('id', '=', build.workspaceId));
    }
  }
  writes.push((q) =>
    q.updateTable('provisioner_jobs').set({ completed_at: now, updated_at: now }).where('id', '=', jobId).where('completed_at', 'is', null),
  );
  await writeTogether(db, dialect, writes);
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
