import { Type, type Static } from '@sinclair/typebox';
import { DateTime } from './common.js';

/** One stored line of an agent's logs, as `GET /workspaceagents/{id}/logs` lists it. */
export const WorkspaceAgentLog = Type.Object({
  id: Type.Integer(),
  created_at: DateTime,
  level: Type.Union(['trace', 'debug', 'info', 'warn', 'error'].map((l) => Type.Literal(l))),
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
