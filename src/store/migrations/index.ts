import type { Migration } from './migration.js';
import { identityMigration } from './0001-identity.js';
import { templatesMigration } from './0002-templates.js';
import { workspacesMigration } from './0003-workspaces.js';
import { agentsMigration } from './0004-agents.js';
import { agentExtrasMigration } from './0005-agent-extras.js';
import { agentInstanceIdentityMigration } from './0006-agent-instance-identity.js';
import { agentRelayUrlMigration } from './0007-agent-relay-url.js';
import { identityListIndexesMigration } from './0008-identity-list-indexes.js';
import { templateListIndexesMigration } from './0009-template-list-indexes.js';
import { workspaceListIndexesMigration } from './0010-workspace-list-indexes.js';
import { queuedJobIndexMigration } from './0011-queued-job-index.js';
import { workspaceLatestBuildStatusMigration } from './0012-workspace-latest-build-status.js';
import { publicPortShareDefaultMigration } from './0013-public-port-share-default.js';
import { usageInsightsMigration } from './0014-usage-insights.js';
import { licensesMigration } from './0015-licenses.js';
import { healthCheckDismissalsMigration } from './0016-health-check-dismissals.js';
import { externalSignInMigration } from './0017-external-sign-in.js';
import { lighterStatusTriggersMigration } from './0018-lighter-status-triggers.js';
import { signInFailuresMigration } from './0019-sign-in-failures.js';
import { userConfigsMigration } from './0020-user-configs.js';
import { agentMetadataMigration } from './0021-agent-metadata.js';
import { groupsAndSharingMigration } from './0022-groups-and-sharing.js';
import { externalAuthMigration } from './0023-external-auth.js';
import { dbcryptKeysMigration } from './0024-dbcrypt-keys.js';
import { auditAndConnectionLogsMigration } from './0025-audit-and-connection-logs.js';
import { notificationsMigration } from './0026-notifications.js';
import { connectionLogReplicaMigration } from './0027-connection-log-replica.js';
import { templateVersionDeclaredMetadataMigration } from './0028-template-version-declared-metadata.js';
import { userQuietHoursMigration } from './0029-user-quiet-hours.js';
import { workspaceFavoritesIndexMigration } from './0030-workspace-favorites-index.js';

/** Every migration this binary knows, in order. */
export const MIGRATIONS: readonly Migration[] = [
  identityMigration,
  templatesMigration,
  workspacesMigration,
  agentsMigration,
  agentExtrasMigration,
  agentInstanceIdentityMigration,
  agentRelayUrlMigration,
  identityListIndexesMigration,
  templateListIndexesMigration,
  workspaceListIndexesMigration,
  queuedJobIndexMigration,
  workspaceLatestBuildStatusMigration,
  publicPortShareDefaultMigration,
  usageInsightsMigration,
  licensesMigration,
  healthCheckDismissalsMigration,
  externalSignInMigration,
  lighterStatusTriggersMigration,
  signInFailuresMigration,
  userConfigsMigration,
  agentMetadataMigration,
  groupsAndSharingMigration,
  externalAuthMigration,
  dbcryptKeysMigration,
  auditAndConnectionLogsMigration,
  notificationsMigration,
  connectionLogReplicaMigration,
  templateVersionDeclaredMetadataMigration,
  userQuietHoursMigration,
  workspaceFavoritesIndexMigration,
];

export type { Migration } from './migration.js';
