import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { ProvisionerJobRow } from './provisioner-jobs.js';

/** What the deployment's numbers are computed from. */
export interface DeploymentStatsInputs {
  /** The latest build of each live workspace: its transition and its job. */
  readonly latestBuilds: readonly { readonly transition: string; readonly job: ProvisionerJobRow }[];
  /** The stats reports (JSON) agents sent since the window's start. */
  readonly agentReports: readonly (string | null)[];
}

/** Reads the latest build of every live workspace with its job, and recent agent reports: two queries. */
export async function deploymentStatsInputs(db: Kysely<Database>, since: string): Promise<DeploymentStatsInputs> {
  const builds = await db
    .selectFrom('workspace_builds as b')
    .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
    .innerJoin('provisioner_jobs as j', 'j.id', 'b.job_id')
    .selectAll('j')
    .select('b.transition as build_transition')
    .where('w.deleted', '=', 0)
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
  const agents = await db.selectFrom('workspace_agents').select('last_stats').where('last_stats_at', '>=', since).execute();
  return {
    latestBuilds: builds.map(({ build_transition, ...job }) => ({ transition: build_transition, job })),
    agentReports: agents.map((agent) => agent.last_stats),
  };
}
