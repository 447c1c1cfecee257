import type { Selectable } from 'kysely';
import type { WorkspaceAgentTable, WorkspaceBuildTable, WorkspaceTable } from '../schema.js';

// The rows of a workspace, its builds and their agents, in a file of their own: the agent queries
// name them and the workspace queries call the agent queries, so neither can declare them for both.
export type WorkspaceRow = Selectable<WorkspaceTable>;
export type WorkspaceBuildRow = Selectable<WorkspaceBuildTable>;
export type WorkspaceAgentRow = Selectable<WorkspaceAgentTable>;
