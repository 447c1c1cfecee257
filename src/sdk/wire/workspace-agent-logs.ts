import { Type, type Static } from '@sinclair/typebox';
import { DateTime } from './common.js';

/**
 * How severe a log line is. One `enum` rather than a union of literals: checking a line against a
 * union made (and dropped) an error for each level tried before the one that matched, and agents
 * send lines by the thousand.
 */
export const AgentLogLevel = Type.Unsafe<string>({ type: 'string', enum: ['trace', 'debug', 'info', 'warn', 'error'] });

/** One stored line of an agent's logs, as `GET /workspaceagents/{id}/logs` lists it. */
export const WorkspaceAgentLog = Type.Object({
  id: Type.Integer(),
  created_at: DateTime,
  level: AgentLogLevel,
  output: Type.String(),
  source_id: Type.String(),
});
export type WorkspaceAgentLog = Static<typeof WorkspaceAgentLog>;

/** Where an agent's log lines come from: a script, or the well-known External source. */
export const WorkspaceAgentLogSource = Type.Object({
  id: Type.String(),
  workspace_agent_id: Type.String(),
  created_at: DateTime,
  display_name: Type.String(),
  icon: Type.String(),
});
export type WorkspaceAgentLogSource = Static<typeof WorkspaceAgentLogSource>;
