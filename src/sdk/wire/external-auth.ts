import { Type, type Static } from '@sinclair/typebox';
import { DateTime } from './common.js';

/** The account a user linked, as the provider's validate URL describes it. */
export const ExternalAuthUser = Type.Object({
  id: Type.Integer(),
  login: Type.String(),
  avatar_url: Type.String(),
  profile_url: Type.String(),
  name: Type.String(),
});
export type ExternalAuthUser = Static<typeof ExternalAuthUser>;

/** An installation of a provider's app the user may use (GitHub apps). */
export const ExternalAuthAppInstallation = Type.Object({
  id: Type.Integer(),
  account: ExternalAuthUser,
  configure_url: Type.String(),
});
export type ExternalAuthAppInstallation = Static<typeof ExternalAuthAppInstallation>;

/** `GET /external-auth/{id}`: whether the caller has linked the provider, and as whom. */
export const ExternalAuth = Type.Object({
  authenticated: Type.Boolean(),
  device: Type.Boolean(),
  display_name: Type.String(),
  supports_revocation: Type.Boolean(),
  user: Type.Union([ExternalAuthUser, Type.Null()]),
  app_installable: Type.Boolean(),
  installations: Type.Array(ExternalAuthAppInstallation),
  app_install_url: Type.String(),
});
export type ExternalAuth = Static<typeof ExternalAuth>;

/**
 * One of the caller's links, told from the database and the deployment's settings alone (no call
 * to the provider). `expires` is the access token's expiry (the zero time when it has none);
 * `validate_error` says why the link needs to be made again, empty when it does not.
 */
export const ExternalAuthLink = Type.Object({
  provider_id: Type.String(),
  created_at: DateTime,
  updated_at: DateTime,
  has_refresh_token: Type.Boolean(),
  expires: DateTime,
  authenticated: Type.Boolean(),
  validate_error: Type.String(),
});
export type ExternalAuthLink = Static<typeof ExternalAuthLink>;

/** A configured provider, as users see it. */
export const ExternalAuthLinkProvider = Type.Object({
  id: Type.String(),
  type: Type.String(),
  device: Type.Boolean(),
  display_name: Type.String(),
  display_icon: Type.String(),
  allow_refresh: Type.Boolean(),
  allow_validate: Type.Boolean(),
  supports_revocation: Type.Boolean(),
  code_challenge_methods_supported: Type.Array(Type.String()),
});
export type ExternalAuthLinkProvider = Static<typeof ExternalAuthLinkProvider>;

/**
 * `GET /external-auth`: the configured providers and the caller's links. A link whose provider is
 * no longer configured is still listed, so that it can be removed.
 */
export const ListUserExternalAuthResponse = Type.Object({
  providers: Type.Array(ExternalAuthLinkProvider),
  links: Type.Array(ExternalAuthLink),
});
export type ListUserExternalAuthResponse = Static<typeof ListUserExternalAuthResponse>;

/** `DELETE /external-auth/{id}`: whether the provider revoked the token too. */
export const DeleteExternalAuthByIDResponse = Type.Object({
  token_revoked: Type.Boolean(),
  token_revocation_error: Type.Optional(Type.String()),
});
export type DeleteExternalAuthByIDResponse = Static<typeof DeleteExternalAuthByIDResponse>;

/** `GET /external-auth/{id}/device`: a device authorization under way (RFC 8628, section 3.2). */
export const ExternalAuthDevice = Type.Object({
  device_code: Type.String(),
  user_code: Type.String(),
  verification_uri: Type.String(),
  expires_in: Type.Integer(),
  interval: Type.Integer(),
});
export type ExternalAuthDevice = Static<typeof ExternalAuthDevice>;

/** `POST /external-auth/{id}/device`: the device code to exchange for a token. */
export const ExternalAuthDeviceExchange = Type.Object({
  device_code: Type.String({ minLength: 1, maxLength: 1024 }),
});
export type ExternalAuthDeviceExchange = Static<typeof ExternalAuthDeviceExchange>;

/** One configured provider as `GET /deployment/config` shows it under `external_auth`; the client secret is never sent. */
export const ExternalAuthConfig = Type.Object({
  type: Type.String(),
  client_id: Type.String(),
  id: Type.String(),
  auth_url: Type.String(),
  token_url: Type.String(),
  validate_url: Type.String(),
  revoke_url: Type.String(),
  app_install_url: Type.String(),
  app_installations_url: Type.String(),
  no_refresh: Type.Boolean(),
  scopes: Type.Array(Type.String()),
  device_flow: Type.Boolean(),
  device_code_url: Type.String(),
  mcp_url: Type.String(),
  mcp_tool_allow_regex: Type.String(),
  mcp_tool_deny_regex: Type.String(),
  regex: Type.String(),
  display_name: Type.String(),
  display_icon: Type.String(),
  code_challenge_methods_supported: Type.Array(Type.String()),
});
export type ExternalAuthConfig = Static<typeof ExternalAuthConfig>;
