import type { CoveClient } from '../sdk/client.js';
import type { WorkspaceQuota } from '../sdk/wire/index.js';

/** What a user spends against their budget, in words; undefined when quotas are not in use. */
export function quotaStanding(quota: WorkspaceQuota): string | undefined {
  if (quota.budget < 0) return undefined;
  return `${quota.credits_consumed} of ${quota.budget} credits a day in use, ${Math.max(0, quota.budget - quota.credits_consumed)} left`;
}

/**
 * The line `cove create` shows before it asks: what the version's start costs a day and what the
 * owner has left. Undefined when quotas are not in use, or when the caller may not read the owner's
 * quota (the daemon still refuses a build over budget).
 */
export async function creationCostLine(
  client: CoveClient,
  owner: string,
  organizationId: string,
  versionId: string,
): Promise<string | undefined> {
  const [quota, resources] = await Promise.all([
    client.workspaceQuota(owner, organizationId).catch(() => undefined),
    client.templateVersionResources(versionId).catch(() => []),
  ]);
  if (!quota || quota.budget < 0) return undefined;
  const cost = resources
    .filter((resource) => resource.workspace_transition === 'start')
    .reduce((sum, resource) => sum + resource.daily_cost, 0);
  const left = Math.max(0, quota.budget - quota.credits_consumed);
  const over = quota.credits_consumed + cost - quota.budget;
  const whose = owner === 'me' ? 'you have' : `${owner} has`;
  const verdict = over > 0 ? `: ${over} over budget, the build will be refused.` : '.';
  return `This workspace costs ${cost} credit${cost === 1 ? '' : 's'} a day; ${whose} ${left} of ${quota.budget} left${verdict}`;
}
