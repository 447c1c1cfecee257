/**
 * Request checks for creating or updating a custom organization role. Whether the actor may
 * manage custom roles at all (`create`/`update` on `assign_org_role` in the org) is the caller's
 * check, because its failure answers differently (404) from these (400).
 */
import { authorize } from './authorize.js';
import { isBuiltInRoleName } from './builtin-roles.js';
import { permissionError, type Action, type ResourceType } from './policy.js';
import type { Permission, Role } from './role.js';
import type { Subject } from './subject.js';
import { nameRuleError } from '../lib/name-rule.js';

export { nameRuleError };

/** A permission as sent by a client: strings not yet known to be valid. */
export interface PermissionInput {
  readonly negate: boolean;
  readonly resource_type: string;
  readonly action: string;
}

/** The custom role request body; the organization comes from the URL. */
export interface CustomRoleBody {
  readonly name: string;
  readonly display_name: string;
  readonly site_permissions?: readonly PermissionInput[] | null;
  readonly organization_permissions?: readonly PermissionInput[] | null;
  readonly user_permissions?: readonly PermissionInput[] | null;
}

/** Outcome of {@link validateCustomOrgRole}: the role to save, or a 400 message and detail. */
export type CustomRoleValidation =
  { readonly ok: true; readonly role: Role } | { readonly ok: false; readonly message: string; readonly detail?: string };

function fail(message: string, detail?: string): CustomRoleValidation {
  return detail === undefined ? { ok: false, message } : { ok: false, message, detail };
}

/** Why the actor may not put `p` into a role of `orgId`, or `undefined` when it may. `p` is already valid. */
function grantError(actor: Subject, orgId: string, p: PermissionInput): string | undefined {
  const what = `invalid permission for action="${p.action}" type="${p.resource_type}"`;
  if (p.negate) return `${what}, no negative permissions`;
  // Wildcards would also cover resources and actions added in later versions.
  if (p.action === '*' || p.resource_type === '*') return `${what}, no wildcard symbols`;
  const object = { type: p.resource_type as ResourceType, org_id: orgId };
  if (!authorize(actor, p.action as Action, object)) return `${what}, not allowed to grant this permission`;
  return undefined;
}

/**
 * Checks a custom organization role request for `orgId` on behalf of `actor`: the name is not
 * reserved and follows the name rule, there are no site or user permissions, every org
 * permission is valid, positive, without wildcards, and held by the actor itself in that org
 * (no escalation). On success returns the role to store.
 */
export function validateCustomOrgRole(actor: Subject, orgId: string, body: CustomRoleBody): CustomRoleValidation {
  if (isBuiltInRoleName(body.name)) {
    return fail('Reserved role name', `"${body.name}" is a reserved role name, and not allowed to be used`);
  }
  const nameError = nameRuleError(body.name);
  if (nameError !== undefined) return fail('Invalid role name', nameError);
  if ((body.site_permissions?.length ?? 0) > 0) {
    return fail(
      'Invalid request, not allowed to assign site wide permissions for an organization role.',
      'organization scoped roles may not contain site wide permissions',
    );
  }
  if ((body.user_permissions?.length ?? 0) > 0) {
    return fail(
      'Invalid request, not allowed to assign user permissions for an organization role.',
      'organization scoped roles may not contain user permissions',
    );
  }
  const requested = body.organization_permissions ?? [];
  for (const p of requested) {
    const invalid = permissionError(p);
    if (invalid !== undefined) return fail('Failed to update role permissions', invalid);
  }
  for (const p of requested) {
    const refused = grantError(actor, orgId, p);
    if (refused !== undefined) return fail('Failed to update role permissions', refused);
  }
  const org: Permission[] = requested.map((p) => ({
    negate: false,
    resource_type: p.resource_type as ResourceType,
    action: p.action as Action,
  }));
  return {
    ok: true,
    role: { name: body.name, display_name: body.display_name, organization_id: orgId, site: [], org, user: [] },
  };
}
