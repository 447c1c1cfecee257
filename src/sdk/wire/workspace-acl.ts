import { Type, type Static } from '@sinclair/typebox';
import { Group } from './groups.js';
import { MinimalUser } from './users.js';

/** A role a workspace is shared with: `use` (enter, start, stop), `admin` (also edit, delete); `''` removes in an update. */
export const WorkspaceRole = Type.Union([Type.Literal('admin'), Type.Literal(''), Type.Literal('use')]);
export type WorkspaceRole = Static<typeof WorkspaceRole>;

/** A user a workspace is shared with: their minimal fields and role. */
export const WorkspaceUser = Type.Composite([MinimalUser, Type.Object({ role: WorkspaceRole })]);
export type WorkspaceUser = Static<typeof WorkspaceUser>;

/** A group a workspace is shared with: the group's fields and role. */
export const WorkspaceGroup = Type.Composite([Group, Type.Object({ role: WorkspaceRole })]);
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
