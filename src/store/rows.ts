/**
 * The row shapes the store hands out, for the layers above it. Those layers may name these types
 * but never the query functions or the table definitions behind them.
 */
export type { ApiKeyRow } from './queries/api-keys.js';
export type { CustomRoleRow } from './queries/custom-roles.js';
export type { FileInfo, FileRow } from './queries/files.js';
export type { GitSshKeyRow } from './queries/git-ssh-keys.js';
export type { MemberRow } from './queries/members.js';
export type { OrganizationRow } from './queries/organizations.js';
export type { NewJobFields, ProvisionerJobLogRow, ProvisionerJobRow, WorkspaceResourceRow } from './queries/provisioner-jobs.js';
export type { ProvisionerKeyRow } from './queries/provisioner-keys.js';
export type { TemplateRow, TemplateVersionRow } from './queries/templates.js';
export type { UserFilter, UserRow } from './queries/users.js';
export type { AgentLogRow, AgentLogSourceRow, AgentRow, AgentWithOwners } from './queries/workspace-agents.js';
export type { AppStatusRow } from './queries/workspace-app-statuses.js';
export type { WorkspaceAgentRow, WorkspaceBuildRow, WorkspaceRow } from './queries/workspaces.js';
export type { BuildInsert, UserName, WorkspaceDetails } from './queries/workspaces.js';
export type { WorkspaceListFilter } from './queries/workspace-lists.js';
