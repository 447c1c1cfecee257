// What workspaces cost a day against the budget the user's groups allow. A budget below zero
// means no group grants an allowance: quotas are not in use, and nothing is shown.
import type { WorkspaceQuota, WorkspaceResource } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { useLoad } from './feedback.js';

/** "Quota: used/budget" for the signed-in user in an organization (the default one without). */
export function QuotaSummary({ organizationId, refresh }: { organizationId?: string; refresh?: unknown }) {
  const path = organizationId ? `/organizations/${organizationId}/members/me/workspace-quota` : '/workspace-quota/me';
  const { data } = useLoad(() => api<WorkspaceQuota>('GET', path), [path, refresh]);
  if (!data || data.budget < 0) return null;
  const over = data.credits_consumed > data.budget;
  return (
    <span
      className={over ? 'badge badge-warn quota-summary' : 'badge quota-summary'}
      aria-label="Workspace quota"
      title="Credits a day your workspaces use, of the budget your groups allow"
    >
      Quota: {data.credits_consumed}/{data.budget}
    </span>
  );
}

/** What a start of the template version costs a day, and what the user has left, before they create. */
export function CreationCost({ organizationId, versionId }: { organizationId: string; versionId: string }) {
  const { data } = useLoad(
    () =>
      Promise.all([
        api<WorkspaceQuota>('GET', `/organizations/${organizationId}/members/me/workspace-quota`),
        api<WorkspaceResource[]>('GET', `/templateversions/${versionId}/resources`),
      ]),
    [organizationId, versionId],
  );
  if (!data) return null;
  const [quota, resources] = data;
  if (quota.budget < 0) return null;
  const cost = resources
    .filter((resource) => resource.workspace_transition === 'start')
    .reduce((sum, resource) => sum + resource.daily_cost, 0);
  const left = Math.max(0, quota.budget - quota.credits_consumed);
  const over = quota.credits_consumed + cost - quota.budget;
  return (
    <p className={over > 0 ? 'field-problem creation-cost' : 'field-hint creation-cost'} role="status" aria-label="Cost">
      This workspace costs {cost} {cost === 1 ? 'credit' : 'credits'} a day; you have {left} of {quota.budget} left
      {over > 0 ? `: ${over} over budget, so it cannot be created.` : '.'}
    </p>
  );
}
