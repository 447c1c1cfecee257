import { Type, type Static } from '@sinclair/typebox';
import { Group, ReducedUser } from './groups.js';
import { User } from './users.js';

/** A template ACL role: `use` reads and uses the template, `admin` may do anything with it; `""` removes an entry. */
export const TemplateRole = Type.Union([Type.Literal('admin'), Type.Literal('use'), Type.Literal('')]);
export type TemplateRole = Static<typeof TemplateRole>;

/** A user named in a template's ACL, with their role there. */
export const TemplateUser = Type.Composite([User, Type.Object({ role: TemplateRole })]);
export type TemplateUser = Static<typeof TemplateUser>;

/** A group named in a template's ACL, with its role there. */
export const TemplateGroup = Type.Composite([Group, Type.Object({ role: TemplateRole })]);
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
export const ACLAvailable = Type.Object({ users: Type.Array(ReducedUser), groups: Type.Array(Group) });
export type ACLAvailable = Static<typeof ACLAvailable>;
