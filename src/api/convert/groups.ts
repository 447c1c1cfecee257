import type { GroupMembers } from '../../store/authorized-store.js';
import type { GroupMemberUser, GroupWithOrganization } from '../../store/rows.js';
import type { Group, GroupSource, LoginType, ReducedUser, UserStatus } from '../../sdk/wire/index.js';

/** A group member as the API shows them; empty name, avatar and theme are left out, as the reference's server does. */
export function toWireReducedUser(row: GroupMemberUser): ReducedUser {
  return {
    id: row.id,
    username: row.username,
    name: row.name || undefined,
    avatar_url: row.avatar_url || undefined,
    email: row.email,
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_seen_at: row.last_seen_at || undefined,
    status: row.status as UserStatus,
    login_type: row.login_type as LoginType,
    theme_preference: row.theme_preference || undefined,
  };
}

/** A group with the members the caller may see and the count of all of them. */
export function toWireGroup(row: GroupWithOrganization, members: GroupMembers | undefined): Group {
  return {
    id: row.id,
    name: row.name,
    display_name: row.display_name,
    organization_id: row.organization_id,
    members: (members?.members ?? []).map(toWireReducedUser),
    total_member_count: members?.total ?? 0,
    avatar_url: row.avatar_url,
    quota_allowance: Number(row.quota_allowance),
    source: row.source as GroupSource,
    organization_name: row.organization_name,
    organization_display_name: row.organization_display_name,
  };
}
