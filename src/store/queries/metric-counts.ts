import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** How many live workspaces have a latest build in one state: its transition and its job's timestamps. */
export interface LatestBuildStateCount {
  readonly transition: string;
  readonly started: boolean;
  readonly completed: boolean;
  readonly canceled: boolean;
  readonly failed: boolean;
  readonly count: number;
}

/**
 * Live workspaces grouped by the state of their latest build, counted in the database: a handful
 * of rows whatever the number of workspaces.
 */
export async function countLatestBuildStates(db: Kysely<Database>): Promise<LatestBuildStateCount[]> {
  const rows = await db
    .selectFrom('workspace_builds as b')
    .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
    .innerJoin('provisioner_jobs as j', 'j.id', 'b.job_id')
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
    .select((eb) => [
      'b.transition',
      eb.case().when('j.started_at', 'is not', null).then(1).else(0).end().as('started'),
      eb.case().when('j.completed_at', 'is not', null).then(1).else(0).end().as('completed'),
      eb.case().when('j.canceled_at', 'is not', null).then(1).else(0).end().as('canceled'),
      eb.case().when('j.error', '!=', '').then(1).else(0).end().as('failed'),
      eb.fn.countAll().as('count'),
    ])
    .groupBy(['b.transition', 'started', 'completed', 'canceled', 'failed'])
    .execute();
  return rows.map((row) => ({
    transition: row.transition,
    started: Number(row.started) === 1,
    completed: Number(row.completed) === 1,
    canceled: Number(row.canceled) === 1,
    failed: Number(row.failed) === 1,
    count: Number(row.count),
  }));
}

/** Provisioner jobs waiting for a daemon and jobs a daemon is working on, counted in the database. */
export async function countActiveJobs(db: Kysely<Database>): Promise<{ readonly queued: number; readonly running: number }> {
  const row = await db
    .selectFrom('provisioner_jobs')
    .where('completed_at', 'is', null)
    .select((eb) => [
      eb.fn
        .sum<number>(
          eb
            .case()
            .when(eb.and([eb('started_at', 'is', null), eb('canceled_at', 'is', null)]))
            .then(1)
            .else(0)
            .end(),
        )
        .as('queued'),
      eb.fn.sum<number>(eb.case().when('started_at', 'is not', null).then(1).else(0).end()).as('running'),
    ])
    .executeTakeFirst();
  return { queued: Number(row?.queued ?? 0), running: Number(row?.running ?? 0) };
}
