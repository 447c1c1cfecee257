import { builtInOrgRole, builtInSiteRole } from '../../rbac/index.js';
import type { OrganizationMember, OrganizationMemberWithUser } from '../../sdk/wire/index.js';
import type { MemberWithUser } from '../../store/authorized-store.js';
import { parseStringArray } from '../../store/json-column.js';
import type { MemberRow } from '../../store/rows.js';

/** A membership as the API shows it; the implicit organization-member role is not listed. */
export function toWireMember(row: MemberRow): OrganizationMember {
  return {
    user_id: row.user_id,
    organization_id: row.organization_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    roles: parseStringArray(row.roles).map((name) => ({
      name,
      display_name: builtInOrgRole(name, row.organization_id)?.display_name ?? name,
      organization_id: row.organization_id,
    })),
  };
}

/** A membership with its user's fields and site roles; an empty name or avatar is left out, as the reference does. */
export function toWireMemberWithUser(row: MemberWithUser): OrganizationMemberWithUser {
  return {
    ...toWireMember(row),
    username: row.username,
    name: row.name || undefined,
    email: row.email,
    avatar_url: row.avatar_url || undefined,
    global_roles: parseStringArray(row.rbac_roles).map((name) => ({
      name,
      display_name: builtInSiteRole(name)?.display_name ?? name,
    })),
  };
}
