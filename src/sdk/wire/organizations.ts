import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Uuid } from './common.js';

export const Organization = Type.Object({
  id: Uuid,
  name: Type.String(),
  display_name: Type.String(),
  description: Type.String(),
  icon: Type.String(),
  created_at: DateTime,
  updated_at: DateTime,
  is_default: Type.Boolean(),
});
export type Organization = Static<typeof Organization>;

export const ValidatePasswordRequest = Type.Object({ password: Type.String() });
export type ValidatePasswordRequest = Static<typeof ValidatePasswordRequest>;

export const ValidatePasswordResponse = Type.Object({ valid: Type.Boolean(), details: Type.String() });
export type ValidatePasswordResponse = Static<typeof ValidatePasswordResponse>;

export const Permission = Type.Object({ negate: Type.Boolean(), resource_type: Type.String(), action: Type.String() });
export type Permission = Static<typeof Permission>;

export const CreateOrganizationRequest = Type.Object({
  name: Type.String(),
  display_name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
});
export type CreateOrganizationRequest = Static<typeof CreateOrganizationRequest>;

export const UpdateOrganizationRequest = Type.Partial(CreateOrganizationRequest);
export type UpdateOrganizationRequest = Static<typeof UpdateOrganizationRequest>;

/** A role of a member; a site role names no organization (left out, as the reference does). */
const RoleRef = Type.Object({ name: Type.String(), display_name: Type.String(), organization_id: Type.Optional(Type.String()) });

export const OrganizationMember = Type.Object({
  user_id: Uuid,
  organization_id: Uuid,
  created_at: DateTime,
  updated_at: DateTime,
  roles: Type.Array(RoleRef),
});
export type OrganizationMember = Static<typeof OrganizationMember>;

export const OrganizationMemberWithUser = Type.Composite([
  OrganizationMember,
  Type.Object({
    username: Type.String(),
    /** Name and avatar are left out when empty, as the reference's server leaves them out. */
    name: Type.Optional(Type.String()),
    email: Type.String(),
    avatar_url: Type.Optional(Type.String()),
    global_roles: Type.Array(RoleRef),
  }),
]);
export type OrganizationMemberWithUser = Static<typeof OrganizationMemberWithUser>;

export const PaginatedMembers = Type.Object({ members: Type.Array(OrganizationMemberWithUser), count: Type.Integer() });
export type PaginatedMembers = Static<typeof PaginatedMembers>;

export const RoleObject = Type.Object({
  name: Type.String(),
  display_name: Type.String(),
  /** Left out for site-wide roles, as the reference's server leaves an empty organization out. */
  organization_id: Type.Optional(Uuid),
  site_permissions: Type.Array(Permission),
  organization_permissions: Type.Array(Permission),
  user_permissions: Type.Array(Permission),
});
export type RoleObject = Static<typeof RoleObject>;

/** A role as listings show it, with whether the caller may assign it and whether it is built in. */
export const AssignableRole = Type.Composite([RoleObject, Type.Object({ assignable: Type.Boolean(), built_in: Type.Boolean() })]);
export type AssignableRole = Static<typeof AssignableRole>;

export const CustomRoleRequest = Type.Object({
  name: Type.String(),
  display_name: Type.Optional(Type.String()),
  site_permissions: Type.Optional(Type.Union([Type.Array(Permission), Type.Null()])),
  organization_permissions: Type.Optional(Type.Union([Type.Array(Permission), Type.Null()])),
  user_permissions: Type.Optional(Type.Union([Type.Array(Permission), Type.Null()])),
});
export type CustomRoleRequest = Static<typeof CustomRoleRequest>;
