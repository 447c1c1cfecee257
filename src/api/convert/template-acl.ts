import { templateRoleOf } from '../../domain/template-acl.js';
import type { AclGroup, AclUser, ACLAvailable, TemplateACL } from '../../sdk/wire/index.js';
import type { AclGroupRow, TemplateAclRows } from '../../store/authorized-store.js';
import type { UserRow } from '../../store/rows.js';
import { toWireUser } from './user.js';

/** A user without roles and organizations, as ACL answers list them. */
function toAclUser(row: UserRow): AclUser {
  const { organization_ids: _organizations, roles: _roles, ...reduced } = toWireUser(row, []);
  return reduced;
}

function toAclGroup(row: AclGroupRow): AclGroup {
  const { group } = row;
  return {
    id: group.id,
    name: group.name,
    display_name: group.display_name,
    organization_id: group.organization_id,
    members: row.members.map(toAclUser),
    total_member_count: row.members.length,
    avatar_url: group.avatar_url,
    quota_allowance: group.quota_allowance,
    source: group.source === 'oidc' ? 'oidc' : 'user',
    organization_name: row.organizationName,
    organization_display_name: row.organizationDisplayName,
  };
}

/** A template's ACL as `GET /templates/{template}/acl` answers it. */
export function toWireTemplateAcl(rows: TemplateAclRows): TemplateACL {
  return {
    users: rows.users.map((user) => ({
      ...toWireUser(user, rows.organizationIds.get(user.id) ?? []),
      role: templateRoleOf(rows.userAcl[user.id]),
    })),
    group: rows.groups.map((group) => ({ ...toAclGroup(group), role: templateRoleOf(rows.groupAcl[group.group.id]) })),
  };
}

/** Whom a template's ACL could name, as `GET /templates/{template}/acl/available` answers it. */
export function toWireAclAvailable(rows: { readonly users: readonly UserRow[]; readonly groups: readonly AclGroupRow[] }): ACLAvailable {
  return { users: rows.users.map(toAclUser), groups: rows.groups.map(toAclGroup) };
}
