import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** A user's allowance in one organization, and whether any group of it grants one at all. */
export interface QuotaAllowance {
  /** The sum of the allowances of the user's groups there, the Everyone group included for a member. */
  readonly budget: number;
  /** Whether some group of the organization has an allowance above zero: without one, quotas are not in use. */
  readonly inUse: boolean;
}

/**
 * The user's budget in the organization: the allowances of the groups they are a stored member
 * of, plus the organization's Everyone group (its id is the organization's) when they are a member.
 */
export async function quotaAllowance(db: Kysely<Database>, userId: string, organizationId: string): Promise<QuotaAllowance> {
  const groups = await db
    .selectFrom('groups')
    .select(['id', 'quota_allowance'])
    .where('organization_id', '=', organizationId)
    .where('quota_allowance', '>', 0)
    .execute();
  if (groups.length === 0) return { budget: 0, inUse: false };
  const [stored, membership] = await Promise.all([
    db
      .selectFrom('group_members')
      .select('group_id')
      .where('user_id', '=', userId)
      .where(
        'group_id',
        'in',
        groups.map((group) => group.id),
      )
      .execute(),
    db
      .selectFrom('organization_members')
      .select('user_id')
      .where('user_id', '=', userId)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst(),
  ]);
  const mine = new Set(stored.map((row) => row.group_id));
  if (membership) mine.add(organizationId);
  const budget = groups.filter((group) => mine.has(group.id)).reduce((sum, group) => sum + Number(group.quota_allowance), 0);
  return { budget, inUse: true };
}

/**
 * Credits the user spends a day in the organization: the cost of the latest build of each of
 * their workspaces that is not deleted (a stopped workspace costs what its stop build left, such
 * as its disks). `exceptWorkspaceId` leaves out the workspace a new build is about to replace.
 */
export async function quotaConsumed(
  db: Kysely<Database>,
  userId: string,
  organizationId: string,
  exceptWorkspaceId?: string,
): Promise<number> {
  let query = db
    .selectFrom('workspaces as w')
    .innerJoin('workspace_builds as b', 'b.workspace_id', 'w.id')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('b.daily_cost'), eb.lit(0)).as('total'))
    .where('w.owner_id', '=', userId)
    .where('w.organization_id', '=', organizationId)
    .where('w.deleted', '=', 0)
    .where((eb) =>
      eb(
        'b.build_number',
        '=',
        eb
          .selectFrom('workspace_builds as latest')
          .select((inner) => inner.fn.max('latest.build_number').as('n'))
          .whereRef('latest.workspace_id', '=', 'w.id'),
      ),
    );
  if (exceptWorkspaceId !== undefined) query = query.where('w.id', '!=', exceptWorkspaceId);
  const row = await query.executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** The daily cost a start build of a template version plans: the start resources its import recorded. */
export async function plannedStartCost(db: Kysely<Database>, importJobId: string): Promise<number> {
  const row = await db
    .selectFrom('workspace_resources')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('daily_cost'), eb.lit(0)).as('total'))
    .where('job_id', '=', importJobId)
    .where('transition', '=', 'start')
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** The daily cost a start of the template version plans, found through the version's import job. */
export async function versionStartCost(db: Kysely<Database>, versionId: string): Promise<number> {
  const row = await db
    .selectFrom('template_versions as v')
    .innerJoin('workspace_resources as r', 'r.job_id', 'v.job_id')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('r.daily_cost'), eb.lit(0)).as('total'))
    .where('v.id', '=', versionId)
    .where('r.transition', '=', 'start')
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** The daily cost recorded on a workspace's build of that number; 0 when there is none. */
export async function buildCost(db: Kysely<Database>, workspaceId: string, buildNumber: number): Promise<number> {
  const row = await db
    .selectFrom('workspace_builds')
    .select('daily_cost')
    .where('workspace_id', '=', workspaceId)
    .where('build_number', '=', buildNumber)
    .executeTakeFirst();
  return Number(row?.daily_cost ?? 0);
}
