import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from './common.js';
import { LoginType, UserStatus } from './users.js';

/** A user as group member listings show them; name, avatar and theme are left out when empty. */
export const ReducedUser = Type.Object({
  id: Uuid,
  username: Type.String(),
  name: Type.Optional(Type.String()),
  avatar_url: Type.Optional(Type.String()),
  email: Type.String(),
  created_at: DateTime,
  updated_at: DateTime,
  last_seen_at: Type.Optional(DateTime),
  status: UserStatus,
  login_type: LoginType,
  theme_preference: Type.Optional(Type.String()),
});
export type ReducedUser = Static<typeof ReducedUser>;

/** Who made a group: by hand, or group sync from the sign-in provider. */
export const GroupSource = Type.Union([Type.Literal('user'), Type.Literal('oidc')]);
export type GroupSource = Static<typeof GroupSource>;

/** A group of an organization; the organization's "Everyone" group has the organization's id. */
export const Group = Type.Object({
  id: Uuid,
  name: Type.String(),
  display_name: Type.String(),
  organization_id: Uuid,
  /** The members the caller may see. */
  members: Type.Array(ReducedUser),
  /** Every member, including those the caller may not see. */
  total_member_count: Type.Integer(),
  avatar_url: Type.String(),
  quota_allowance: Type.Integer(),
  source: GroupSource,
  organization_name: Type.String(),
  organization_display_name: Type.String(),
});
export type Group = Static<typeof Group>;

const QuotaAllowance = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });

export const CreateGroupRequest = Type.Object({
  name: Type.String(),
  display_name: Type.Optional(Type.String()),
  avatar_url: Type.Optional(Type.String()),
  quota_allowance: Type.Optional(QuotaAllowance),
});
export type CreateGroupRequest = Static<typeof CreateGroupRequest>;

/** An edit of a group: an empty or absent name keeps it; null or absent fields keep theirs. */
export const PatchGroupRequest = Type.Object({
  add_users: Type.Optional(Type.Array(Type.String())),
  remove_users: Type.Optional(Type.Array(Type.String())),
  name: Type.Optional(Type.String()),
  display_name: Type.Optional(Nullable(Type.String())),
  avatar_url: Type.Optional(Nullable(Type.String())),
  quota_allowance: Type.Optional(Nullable(QuotaAllowance)),
});
export type PatchGroupRequest = Static<typeof PatchGroupRequest>;
