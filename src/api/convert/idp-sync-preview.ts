import {
  claimStrings,
  checkAllowedGroups,
  groupOutcomes,
  roleOutcomes,
  syncedSiteRoles,
  type IdpSyncSettings,
} from '../../domain/idp-sync.js';
import { HttpProblem } from '../../lib/errors.js';
import { EVERYONE_GROUP_NAME } from '../../lib/everyone-group.js';
import type { SyncPreviewInputs } from '../../store/authorized/idp-sync.js';
import type { UserRow } from '../../store/rows.js';
import type { IdpSyncGroupOutcome, IdpSyncPreview, IdpSyncRoleOutcome } from '../../sdk/wire/index.js';

/**
 * What sync would make of a user's last claims under the current settings: the same functions the
 * sign-in runs, applied to the stored claims, with nothing written.
 */
export function idpSyncPreview(
  settings: IdpSyncSettings,
  user: UserRow,
  organizationId: string,
  inputs: SyncPreviewInputs,
): IdpSyncPreview {
  const claims = inputs.claims ?? {};
  const byName = new Map(inputs.groups.map((group) => [group.name, group]));
  const memberIds = new Set(inputs.memberGroupIds);

  const groupSync = groupOutcomes(settings, claims);
  const groups: IdpSyncGroupOutcome[] = [];
  let groupError = '';
  if (groupSync && 'error' in groupSync) groupError = groupSync.error;
  for (const outcome of groupSync && 'outcomes' in groupSync ? groupSync.outcomes : []) {
    const group = byName.get(outcome.group_name);
    const isEveryone = group?.id === organizationId && outcome.group_name === EVERYONE_GROUP_NAME;
    groups.push({
      claim_value: outcome.claim_value,
      group_name: outcome.group_name,
      status: outcome.filtered ? 'filtered' : group ? 'mapped' : settings.autoCreateGroups ? 'auto_created' : 'missing',
      member: group !== undefined && (isEveryone || memberIds.has(group.id)),
    });
  }
  const kept = new Set(groups.filter((group) => group.status === 'mapped').map((group) => group.group_name));
  // Without a readable claim, sync leaves memberships alone: nothing would be removed.
  const removed =
    groupSync && 'outcomes' in groupSync
      ? inputs.groups.filter((group) => memberIds.has(group.id) && !kept.has(group.name)).map((group) => group.name)
      : [];

  let allowed = true;
  try {
    checkAllowedGroups(settings, claims);
  } catch {
    allowed = false;
  }

  let roleError = '';
  let roles: IdpSyncRoleOutcome[] = [];
  let siteRoles: string[] = [];
  try {
    const outcomes = roleOutcomes(settings, claims);
    roles = (outcomes ?? []).map((outcome) => ({
      claim_value: outcome.claim_value,
      role: outcome.role,
      status: outcome.assignable ? 'assigned' : 'ignored',
    }));
    siteRoles = outcomes ? syncedSiteRoles(outcomes) : parseRoles(user.rbac_roles);
  } catch (error) {
    roleError = error instanceof HttpProblem ? (error.detail ?? error.message) : String(error);
    siteRoles = parseRoles(user.rbac_roles);
  }

  return {
    user_id: user.id,
    username: user.username,
    login_type: user.login_type,
    claims: inputs.claims ?? null,
    claims_received_at: inputs.claimsAt ?? null,
    organization_id: organizationId,
    group_sync: {
      enabled: settings.groupField !== '',
      field: settings.groupField,
      regex_filter: settings.groupFilter?.source ?? '',
      auto_create_missing: settings.autoCreateGroups,
      claim_values: readable(claims[settings.groupField]),
      error: groupError,
      groups,
      groups_removed: removed,
    },
    allowed_groups: { groups: [...settings.allowedGroups], allowed },
    role_sync: {
      enabled: settings.roleField !== '',
      field: settings.roleField,
      claim_values: settings.roleField === '' ? [] : readable(claims[settings.roleField]),
      error: roleError,
      roles,
      site_roles: siteRoles,
    },
  };
}

/** The strings of a claim, or none when it cannot be read (the error field says why). */
function readable(claim: unknown): string[] {
  try {
    return claimStrings(claim);
  } catch {
    return [];
  }
}

function parseRoles(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}
