import { HttpProblem } from '../lib/errors.js';
import type { AuthorizedStore, QuotaPlan } from '../store/authorized-store.js';
import type { WorkspaceBuildRow, WorkspaceRow } from '../store/rows.js';

/** How the wire answers a user's standing: a budget of -1 says no group grants an allowance, so nothing is counted against one. */
export const UNLIMITED_BUDGET = -1;

/** The wire's `{credits_consumed, budget}` for a user in an organization. */
export async function workspaceQuota(
  store: AuthorizedStore,
  userId: string,
  organizationId: string,
): Promise<{ credits_consumed: number; budget: number }> {
  const standing = await store.workspaceQuota.get(userId, organizationId);
  return { credits_consumed: standing.consumed, budget: standing.inUse ? standing.budget : UNLIMITED_BUDGET };
}

/**
 * Refuses a start build that would take its owner over budget, before anything is written. The
 * reference finds out only once the plan has run, and fails the build then; the version's import
 * already recorded what a start plans, so the answer can come first. As in the reference, a build
 * that costs no more than the one it replaces is let through even over budget, so a user above
 * their allowance can still bring a workspace back to what it was.
 */
export async function refuseOverBudget(
  store: AuthorizedStore,
  workspace: Pick<WorkspaceRow, 'id' | 'organization_id' | 'owner_id' | 'dormant_at' | 'user_acl' | 'group_acl'>,
  importJobId: string,
  replacedCost: number,
): Promise<void> {
  const plan = await store.workspaceQuota.planStart(workspace, importJobId);
  const over = overBudget(plan);
  if (over <= 0 || plan.cost <= replacedCost) return;
  const whose = store.subject.id === workspace.owner_id ? 'you have' : 'the owner has';
  const left = Math.max(0, plan.budget - plan.consumed);
  throw new HttpProblem(
    403,
    `This build costs ${credits(plan.cost)} a day; ${whose} ${left} of ${plan.budget} left: ${over} over budget.`,
    {
      detail: `Workspace quota exceeded: ${plan.consumed} credits a day are in use by other workspaces, and the groups allow ${plan.budget}. Stop or delete a workspace, or ask for a larger allowance.`,
    },
  );
}

/**
 * Why a queued start build may not run after all, or undefined when it may: the allowances changed,
 * or two starts were asked for at once, since it was let through. The reference makes this its
 * only check, once the plan has run; here it backs up the refusal made when the build was asked for.
 */
export async function queuedStartOverBudget(
  store: AuthorizedStore,
  build: Pick<WorkspaceBuildRow, 'template_version_id' | 'build_number' | 'transition'>,
  workspace: Pick<WorkspaceRow, 'id' | 'organization_id' | 'owner_id' | 'dormant_at' | 'user_acl' | 'group_acl'>,
): Promise<string | undefined> {
  if (build.transition !== 'start') return undefined;
  const plan = await store.workspaceQuota.planQueuedStart(build, workspace);
  const over = overBudget(plan);
  if (over <= 0 || plan.cost <= plan.replacedCost) return undefined;
  return `insufficient quota: this build costs ${credits(plan.cost)} a day; the owner has ${Math.max(0, plan.budget - plan.consumed)} of ${plan.budget} left: ${over} over budget.`;
}

/** By how many credits the plan goes over its budget; zero or less when it fits or quotas are not in use. */
export function overBudget(plan: QuotaPlan): number {
  if (!plan.inUse) return 0;
  return plan.consumed + plan.cost - plan.budget;
}

function credits(n: number): string {
  return n === 1 ? '1 credit' : `${n} credits`;
}
