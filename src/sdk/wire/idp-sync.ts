import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Uuid } from './common.js';

/** `GET /users/oidc-claims`: the claims of the caller's last OIDC sign-in (ID token and userinfo merged). */
export const OIDCClaimsResponse = Type.Object({
  claims: Type.Record(Type.String(), Type.Unknown()),
});
export type OIDCClaimsResponse = Static<typeof OIDCClaimsResponse>;

/**
 * What became of a group name the claim asked for: `mapped` names an existing group, `filtered` is
 * dropped by the regex filter, `auto_created` does not exist and would be created, `missing` does
 * not exist and would be ignored (auto-creation is off).
 */
export const IdpSyncGroupStatus = Type.Union([
  Type.Literal('mapped'),
  Type.Literal('filtered'),
  Type.Literal('auto_created'),
  Type.Literal('missing'),
]);
export type IdpSyncGroupStatus = Static<typeof IdpSyncGroupStatus>;

export const IdpSyncGroupOutcome = Type.Object({
  claim_value: Type.String(),
  group_name: Type.String(),
  status: IdpSyncGroupStatus,
  /** Whether the user is a member of the group now. */
  member: Type.Boolean(),
});
export type IdpSyncGroupOutcome = Static<typeof IdpSyncGroupOutcome>;

export const IdpSyncRoleOutcome = Type.Object({
  claim_value: Type.String(),
  role: Type.String(),
  /** `assigned`: a site role sync gives; `ignored`: not an assignable site role. */
  status: Type.Union([Type.Literal('assigned'), Type.Literal('ignored')]),
});
export type IdpSyncRoleOutcome = Static<typeof IdpSyncRoleOutcome>;

/**
 * `GET /users/{user}/idp-sync-preview`: what group and role sync make of the user's last OIDC
 * claims under the deployment's current settings, so an administrator can see why sync does what
 * it does. Nothing is changed by asking.
 */
export const IdpSyncPreview = Type.Object({
  user_id: Uuid,
  username: Type.String(),
  login_type: Type.String(),
  /** Null when the user never signed in with OIDC. */
  claims: Nullable(Type.Record(Type.String(), Type.Unknown())),
  claims_received_at: Nullable(Type.String({ format: 'date-time' })),
  organization_id: Uuid,
  group_sync: Type.Object({
    enabled: Type.Boolean(),
    field: Type.String(),
    regex_filter: Type.String(),
    auto_create_missing: Type.Boolean(),
    /** The values of the group claim, before the mapping. */
    claim_values: Type.Array(Type.String()),
    /** Why the claim could not be read; sync then leaves memberships as they are. */
    error: Type.String(),
    groups: Type.Array(IdpSyncGroupOutcome),
    /** Groups the user is in that the claims no longer name: sync removes the user from them. */
    groups_removed: Type.Array(Type.String()),
  }),
  allowed_groups: Type.Object({
    groups: Type.Array(Type.String()),
    /** Whether these claims would be let in (always true without an allow list). */
    allowed: Type.Boolean(),
  }),
  role_sync: Type.Object({
    enabled: Type.Boolean(),
    field: Type.String(),
    claim_values: Type.Array(Type.String()),
    error: Type.String(),
    roles: Type.Array(IdpSyncRoleOutcome),
    /** The site roles the user would hold after sync. */
    site_roles: Type.Array(Type.String()),
  }),
});
export type IdpSyncPreview = Static<typeof IdpSyncPreview>;
