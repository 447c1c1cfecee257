import { Type, type Static } from '@sinclair/typebox';

/**
 * The agent metadata watch (`GET /workspaceagents/{agent}/watch-metadata` and `…-ws`): what the
 * template's metadata items of an agent last collected. Shaped as the reference's server sends them.
 */

/** One item as the template declares it; `interval` and `timeout` are seconds. */
export const WorkspaceAgentMetadataDescription = Type.Object({
  display_name: Type.String(),
  key: Type.String(),
  script: Type.String(),
  interval: Type.Integer(),
  timeout: Type.Integer(),
});
export type WorkspaceAgentMetadataDescription = Static<typeof WorkspaceAgentMetadataDescription>;

/**
 * The item's latest run. `age` is whole seconds since `collected_at`; an item never collected has
 * the zero time `0001-01-01T00:00:00Z`, empty value and error.
 */
export const WorkspaceAgentMetadataResult = Type.Object({
  collected_at: Type.String(),
  age: Type.Integer(),
  value: Type.String(),
  error: Type.String(),
});
export type WorkspaceAgentMetadataResult = Static<typeof WorkspaceAgentMetadataResult>;

export const WorkspaceAgentMetadata = Type.Object({
  result: WorkspaceAgentMetadataResult,
  description: WorkspaceAgentMetadataDescription,
});
export type WorkspaceAgentMetadata = Static<typeof WorkspaceAgentMetadata>;

/**
 * A metadata item of an agent as its template declares it (the reference's `coder_agent.metadata`
 * blocks): a script run every `interval` seconds, stopped after `timeout` seconds (0: the interval),
 * shown in `order` then by key.
 */
export const PlannedAgentMetadata = Type.Object({
  key: Type.String(),
  display_name: Type.String(),
  script: Type.String(),
  interval: Type.Integer({ minimum: 0 }),
  timeout: Type.Integer({ minimum: 0 }),
  order: Type.Integer(),
});
export type PlannedAgentMetadata = Static<typeof PlannedAgentMetadata>;

/** What the agent sends of one item's run; the daemon stamps `collected_at` on receipt. */
export const AgentMetadataReport = Type.Object({
  key: Type.String(),
  value: Type.String(),
  error: Type.String(),
  collected_at: Type.String(),
  age: Type.Integer({ minimum: 0 }),
});
export type AgentMetadataReport = Static<typeof AgentMetadataReport>;

export { AGENT_METADATA_VALUE_LIMIT } from '../../lib/agent-metadata-limit.js';
