import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The retention section of `--help` and of the YAML file. */
export const RETENTION_GROUP: OptionGroup = {
  name: 'Retention',
  yaml: 'retention',
  description:
    'How long the database keeps logs and records that only grow: a purge deletes what is older, hourly. ' +
    'A retention of 0 keeps that kind forever. Audit and connection events can also be written out as JSON lines.',
};

/** What the retention options resolve to; durations are milliseconds, 0 keeps forever. */
export interface RetentionValues {
  readonly auditLogsRetentionMs: number;
  readonly connectionLogsRetentionMs: number;
  readonly apiKeysRetentionMs: number;
  readonly workspaceAgentLogsRetentionMs: number;
  readonly provisionerJobLogsRetentionMs: number;
  readonly workspaceUsageStatsRetentionMs: number;
  /** A file that every audit entry is appended to as a JSON line; `-` for standard output; empty for none. */
  readonly auditLogsExport: string;
  /** As auditLogsExport, for connection log rows. */
  readonly connectionLogsExport: string;
}

function retention(
  key: keyof RetentionValues,
  name: string,
  flag: string,
  yaml: string,
  defaultValue: string,
  description: string,
): OptionDefinition<keyof RetentionValues> {
  return {
    key,
    name,
    flag,
    env: `COVE_${flag.toUpperCase().replaceAll('-', '_')}`,
    yaml,
    group: RETENTION_GROUP,
    configPath: ['retention', yaml],
    kind: 'duration',
    default: defaultValue,
    description: `${description} Set to 0 to keep them forever.`,
  };
}

/** The retention options, in `--help` order: the reference's four, then ours. */
export const RETENTION_OPTIONS: readonly OptionDefinition<keyof RetentionValues>[] = [
  retention(
    'auditLogsRetentionMs',
    'Audit Logs Retention',
    'audit-logs-retention',
    'audit_logs',
    '90d',
    'How long audit log entries are kept. Keep them as long as your compliance rules ask, often a year.',
  ),
  retention(
    'connectionLogsRetentionMs',
    'Connection Logs Retention',
    'connection-logs-retention',
    'connection_logs',
    '90d',
    'How long connection log entries are kept.',
  ),
  retention(
    'apiKeysRetentionMs',
    'API Keys Retention',
    'api-keys-retention',
    'api_keys',
    '7d',
    'How long an expired API key or session is kept after it expired; while it is kept, using it says it expired rather than that it is unknown.',
  ),
  retention(
    'workspaceAgentLogsRetentionMs',
    'Workspace Agent Logs Retention',
    'workspace-agent-logs-retention',
    'workspace_agent_logs',
    '7d',
    "How long the logs of an agent that is not of its workspace's latest build are kept after the agent was last connected. The latest build's agent logs are always kept.",
  ),
  retention(
    'provisionerJobLogsRetentionMs',
    'Provisioner Job Logs Retention',
    'provisioner-job-logs-retention',
    'provisioner_job_logs',
    '30d',
    "How long build and template import logs are kept after their job finished. The logs of each workspace's latest build and each template's active version are always kept.",
  ),
  retention(
    'workspaceUsageStatsRetentionMs',
    'Workspace Usage Stats Retention',
    'workspace-usage-stats-retention',
    'workspace_usage_stats',
    '30d',
    'How long the per-minute workspace usage records that insights are computed from are kept.',
  ),
  {
    key: 'auditLogsExport',
    name: 'Audit Logs Export',
    flag: 'audit-logs-export',
    env: 'COVE_AUDIT_LOGS_EXPORT',
    yaml: 'audit_logs_export',
    group: RETENTION_GROUP,
    configPath: ['retention', 'audit_logs_export'],
    kind: 'string',
    default: '',
    description:
      'Also write every audit entry, once its change is committed, as one JSON line to this file (appended to, and opened again on SIGHUP for log rotation), or to standard output with -.',
  },
  {
    key: 'connectionLogsExport',
    name: 'Connection Logs Export',
    flag: 'connection-logs-export',
    env: 'COVE_CONNECTION_LOGS_EXPORT',
    yaml: 'connection_logs_export',
    group: RETENTION_GROUP,
    configPath: ['retention', 'connection_logs_export'],
    kind: 'string',
    default: '',
    description:
      'Also write every connection log row, when the connection opens and when it closes, as one JSON line to this file (appended to, and opened again on SIGHUP), or to standard output with -.',
  },
];
