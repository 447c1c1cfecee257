import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Uuid } from './common.js';

/** What an agent says an app is doing; `statuses` of apps and `latest_app_status` of workspaces list these. */
export const WorkspaceAppStatus = Type.Object({
  id: Uuid,
  created_at: DateTime,
  workspace_id: Uuid,
  agent_id: Uuid,
  app_id: Uuid,
  state: Type.Union(['working', 'idle', 'complete', 'failure'].map((s) => Type.Literal(s))),
  message: Type.String(),
  uri: Type.String(),
  /** Deprecated and unused: always empty. */
  icon: Type.String(),
  /** Deprecated and unused: always false. */
  needs_user_attention: Type.Boolean(),
});
export type WorkspaceAppStatus = Static<typeof WorkspaceAppStatus>;

/** `PATCH /workspaceagents/me/app-status`. `state` is any string so that a wrong one gets the reference's own message. */
export const PatchAppStatusRequest = Type.Object({
  app_slug: Type.String(),
  state: Type.String(),
  message: Type.Optional(Type.String()),
  uri: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
  needs_user_attention: Type.Optional(Type.Boolean()),
});
export type PatchAppStatusRequest = Static<typeof PatchAppStatusRequest>;

/** A user's git SSH key as `/users/{user}/gitsshkey` shows it: never the private half. */
export const GitSshKey = Type.Object({
  user_id: Uuid,
  created_at: DateTime,
  updated_at: DateTime,
  public_key: Type.String(),
});
export type GitSshKey = Static<typeof GitSshKey>;

/** The workspace owner's key pair, for the agent's git SSH wrapper. */
export const AgentGitSshKey = Type.Object({ public_key: Type.String(), private_key: Type.String() });
export type AgentGitSshKey = Static<typeof AgentGitSshKey>;

/** The agent's external-auth query; `url` is the legacy name of `match`. */
export const AgentExternalAuthQuery = Type.Object({
  match: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  id: Type.Optional(Type.String()),
  // Presence turns it on, whatever the value, as the reference's clients send it.
  listen: Type.Optional(Type.String()),
});
export type AgentExternalAuthQuery = Static<typeof AgentExternalAuthQuery>;

/**
 * The answer to the agent's external-auth query: either `url` alone, the page where the user must
 * first link the provider, or the token with the credentials git should use (`username` and
 * `password` as the provider expects them) and `token_extra`, the provider's extra token fields.
 */
export const AgentExternalAuthResponse = Type.Object({
  access_token: Type.Optional(Type.String()),
  token_extra: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  type: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
});
export type AgentExternalAuthResponse = Static<typeof AgentExternalAuthResponse>;

/** A reinitialization event on `GET /workspaceagents/me/reinit`. */
export const ReinitializationEvent = Type.Object({ reason: Type.Literal('prebuild_claimed'), workspaceID: Type.String() });
export type ReinitializationEvent = Static<typeof ReinitializationEvent>;
