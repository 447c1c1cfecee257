/**
 * The row shapes the store hands out, for the layers above it. Those layers may name these types
 * but never the query functions or the table definitions behind them.
 */
export type { ApiKeyRow } from './queries/api-keys.js';
export type { CustomRoleRow } from './queries/custom-roles.js';
export type { FileInfo, FileRow } from './queries/files.js';
export type { SignInStateRow, UserLinkRow } from './queries/external-sign-in.js';
export type { GitSshKeyRow } from './queries/git-ssh-keys.js';
export type { GroupMemberUser, GroupRow, GroupWithOrganization } from './queries/groups.js';
export type { MemberRow } from './queries/members.js';
export type { OrganizationRow } from './queries/organizations.js';
export type { CompletionExpectation, JobCompletion, JobContext, JobWithContext } from './queries/job-completion.js';
export type { ProvisionerDaemonRow, ProvisionerDaemonWithState } from './queries/provisioner-daemons.js';
export type {
  DaemonLiveness,
  JobCancellation,
  JobListFilter,
  JobLogLine,
  JobRelations,
  KnownJobRelations,
  NewJobFields,
  ProvisionerJobLogRow,
  ProvisionerJobRow,
  QueueCount,
  ReapableJob,
  StallCutoffs,
  StalledJob,
  WorkspaceResourceRow,
} from './queries/provisioner-jobs.js';
export type { ProvisionerKeyRow } from './queries/provisioner-keys.js';
export type { TemplateListFilter, TemplateRelations, TemplateRow, TemplateVersionPage, TemplateVersionRow } from './queries/templates.js';
export type { UserFilter, UserRow } from './queries/users.js';
export type {
  AgentLabel,
  AgentLogAppendOutcome,
  AgentLogBatch,
  AgentLogRow,
  AgentLogSourceRow,
  AgentReport,
  AgentRow,
  AgentLogLine,
  AgentScriptTimingRow,
  AgentWithOwners,
  InstanceAgent,
} from './queries/workspace-agents.js';
export type { AppStatusRow } from './queries/workspace-app-statuses.js';
export type { PortShareRow } from './queries/workspace-port-shares.js';
export type { WorkspaceAgentRow, WorkspaceBuildRow, WorkspaceRow } from './queries/workspaces.js';
export type {
  BuildInsert,
  NewBuildReads,
  OrganizationQueue,
  UserName,
  WorkspaceDetails,
  WorkspaceWithLatestBuild,
} from './queries/workspaces.js';
/** The job row a build insert writes, for the layers that answer with it. */
export { insertedJob } from './queries/workspaces.js';
export type { WorkspaceListFilter } from './queries/workspace-lists.js';
/** A job row as it enters the queue, for the layers that create jobs. */
export { queuedJob } from './queries/provisioner-jobs.js';
export type { AuditLogFilter, AuditLogRow, AuditLogWithOrganization, AuditedResourceState } from './queries/audit-logs.js';
export type { ConnectionLogEnd, ConnectionLogFilter, ConnectionLogRow, ConnectionLogView } from './queries/connection-logs.js';
