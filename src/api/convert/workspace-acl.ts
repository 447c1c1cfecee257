import type { WorkspaceAcl } from '../../domain/workspace-acl.js';
import type { WorkspaceACL, WorkspaceRole } from '../../sdk/wire/index.js';
import type { AclUserRow } from '../../store/authorized/workspace-sharing.js';

/** A workspace's ACL as the API shows it; empty names and avatars are left out, as the reference's omitempty fields are. */
export function toWireWorkspaceAcl(acl: WorkspaceAcl): WorkspaceACL {
  const role = (roles: ReadonlyMap<string, WorkspaceRole>, id: string): WorkspaceRole => roles.get(id) ?? '';
  return {
    users: acl.view.users.map((user) => ({
      id: user.id,
      username: user.username,
      ...(user.name !== '' ? { name: user.name } : {}),
      ...(user.avatar_url !== '' ? { avatar_url: user.avatar_url } : {}),
      role: role(acl.userRoles, user.id),
    })),
    group: acl.view.groups.map((group) => ({
      id: group.id,
      name: group.name,
      display_name: group.display_name,
      organization_id: group.organization_id,
      members: group.members.map(toWireGroupMember),
      total_member_count: group.members.length,
      avatar_url: group.avatar_url,
      quota_allowance: Number(group.quota_allowance),
      source: group.source,
      organization_name: group.organization_name,
      organization_display_name: group.organization_display_name,
      role: role(acl.groupRoles, group.id),
    })),
  };
}

function toWireGroupMember(user: AclUserRow): WorkspaceACL['group'][number]['members'][number] {
  return {
    id: user.id,
    username: user.username,
    ...(user.name !== '' ? { name: user.name } : {}),
    ...(user.avatar_url !== '' ? { avatar_url: user.avatar_url } : {}),
    email: user.email,
    created_at: user.created_at,
    updated_at: user.updated_at,
    ...(user.last_seen_at ? { last_seen_at: user.last_seen_at } : {}),
    status: user.status,
    login_type: user.login_type,
  };
}
