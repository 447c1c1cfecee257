import { Type, type Static } from '@sinclair/typebox';

/**
 * A user's daily spending in an organization against their budget (the sum of their groups'
 * allowances). A budget of -1 means no group of the organization grants an allowance: quotas are
 * not in use there.
 */
export const WorkspaceQuota = Type.Object({
  credits_consumed: Type.Integer(),
  budget: Type.Integer(),
});
export type WorkspaceQuota = Static<typeof WorkspaceQuota>;
