import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Uuid } from './common.js';

/** A role a workspace is shared with: `use` (enter, start, stop), `admin` (also edit, delete); `''` removes in an update. */
export const WorkspaceRole = Type.Union([Type.Literal('admin'), Type.Literal(''), Type.Literal('use')]);
export type WorkspaceRole = Static<typeof WorkspaceRole>;

/** A user a workspace is shared with: their minimal fields and role. */
export const WorkspaceUser = Type.Object({
  id: Uuid,
  username: Type.String(),
  name: Type.Optional(Type.String()),
  avatar_url: Type.Optional(Type.String()),
  role: WorkspaceRole,
});
export type WorkspaceUser = Static<typeof WorkspaceUser>;

/** A member of a group a workspace is shared with, in the reference's reduced user fields. */
const WorkspaceGroupMember = Type.Object({
  id: Uuid,
  username: Type.String(),
  name: Type.Optional(Type.String()),
  avatar_url: Type.Optional(Type.String()),
  email: Type.String(),
  created_at: DateTime,
  updated_at: DateTime,
  last_seen_at: Type.Optional(DateTime),
  status: Type.String(),
  login_type: Type.String(),
});

/** A group a workspace is shared with: the group's fields and role. */
export const WorkspaceGroup = Type.Object({
  id: Uuid,
  name: Type.String(),
  display_name: Type.String(),
  organization_id: Uuid,
  members: Type.Array(WorkspaceGroupMember),
  total_member_count: Type.Integer(),
  avatar_url: Type.String(),
  quota_allowance: Type.Integer(),
  source: Type.String(),
  organization_name: Type.String(),
  organization_display_name: Type.String(),
  role: WorkspaceRole,
});
export type WorkspaceGroup = Static<typeof WorkspaceGroup>;

/** `GET /workspaces/{workspace}/acl`: who the workspace is shared with (the reference names the groups `group`). */
export const WorkspaceACL = Type.Object({ users: Type.Array(WorkspaceUser), group: Type.Array(WorkspaceGroup) });
export type WorkspaceACL = Static<typeof WorkspaceACL>;

/** `PATCH /workspaces/{workspace}/acl`: ids of users and groups to their new role, `''` removing them. */
export const UpdateWorkspaceACL = Type.Object({
  user_roles: Type.Optional(Type.Record(Type.String(), Type.String())),
  group_roles: Type.Optional(Type.Record(Type.String(), Type.String())),
});
export type UpdateWorkspaceACL = Static<typeof UpdateWorkspaceACL>;

/** `GET/PATCH /organizations/{organization}/settings/workspace-sharing`. */
export const WorkspaceSharingSettings = Type.Object({ sharing_disabled: Type.Boolean() });
export type WorkspaceSharingSettings = Static<typeof WorkspaceSharingSettings>;
