import { Type, type Static } from '@sinclair/typebox';
import { Uuid } from './common.js';
import { User } from './users.js';

/** A template ACL role: `use` reads and uses the template, `admin` may do anything with it; `""` removes an entry. */
export const TemplateRole = Type.Union([Type.Literal('admin'), Type.Literal('use'), Type.Literal('')]);
export type TemplateRole = Static<typeof TemplateRole>;

/** A user without their roles and organizations (the reference's `ReducedUser`), as ACL answers list them. */
export const AclUser = Type.Omit(User, ['organization_ids', 'roles']);
export type AclUser = Static<typeof AclUser>;

/** A group as template ACL answers show it, with its members (the reference's `Group`). */
export const AclGroup = Type.Object({
  id: Uuid,
  name: Type.String(),
  display_name: Type.String(),
  organization_id: Uuid,
  members: Type.Array(AclUser),
  total_member_count: Type.Integer(),
  avatar_url: Type.String(),
  quota_allowance: Type.Integer(),
  source: Type.Union([Type.Literal('user'), Type.Literal('oidc')]),
  organization_name: Type.String(),
  organization_display_name: Type.String(),
});
export type AclGroup = Static<typeof AclGroup>;

/** A user named in a template's ACL, with their role there. */
export const TemplateUser = Type.Composite([User, Type.Object({ role: TemplateRole })]);
export type TemplateUser = Static<typeof TemplateUser>;

/** A group named in a template's ACL, with its role there. */
export const TemplateGroup = Type.Composite([AclGroup, Type.Object({ role: TemplateRole })]);
export type TemplateGroup = Static<typeof TemplateGroup>;

/** `GET /templates/{template}/acl`: the reference spells the groups' key `group`. */
export const TemplateACL = Type.Object({ users: Type.Array(TemplateUser), group: Type.Array(TemplateGroup) });
export type TemplateACL = Static<typeof TemplateACL>;

/**
 * `PATCH /templates/{template}/acl`: user and group ids to their new role, `""` removing them. Roles
 * are taken as any string so that a wrong one is refused naming its field.
 */
export const UpdateTemplateACL = Type.Object({
  user_perms: Type.Optional(Type.Record(Type.String(), Type.String())),
  group_perms: Type.Optional(Type.Record(Type.String(), Type.String())),
});
export type UpdateTemplateACL = Static<typeof UpdateTemplateACL>;

/** `GET /templates/{template}/acl/available`: whom the template's ACL could name. */
export const ACLAvailable = Type.Object({ users: Type.Array(AclUser), groups: Type.Array(AclGroup) });
export type ACLAvailable = Static<typeof ACLAvailable>;
