import { canAssignRole, type Role, type Subject } from '../../rbac/index.js';
import type { AssignableRole, RoleObject } from '../../sdk/wire/index.js';

/** A role as the API shows it. */
export function toRoleObject(role: Role): RoleObject {
  const copy = (list: Role['site']) => list.map((p) => ({ negate: p.negate, resource_type: p.resource_type, action: p.action }));
  return {
    name: role.name,
    display_name: role.display_name,
    organization_id: role.organization_id || undefined,
    site_permissions: copy(role.site),
    organization_permissions: copy(role.org),
    user_permissions: copy(role.user),
  };
}

/** A role as the role listings show it to `caller`. */
export function toAssignableRole(role: Role, caller: Subject, builtIn: boolean): AssignableRole {
  return { ...toRoleObject(role), assignable: canAssignRole(caller, role.name, role.organization_id, !builtIn), built_in: builtIn };
}
