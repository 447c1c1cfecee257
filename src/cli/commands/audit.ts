import type { AuditLog } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { humanTime } from '../output.js';

const AUDIT_COLUMNS = [
  { heading: 'time', value: (entry: AuditLog) => humanTime(entry.time) },
  // Nobody for a failed sign-in of an unknown address and for the deployment's own work.
  { heading: 'user', value: (entry: AuditLog) => entry.user?.username ?? '' },
  { heading: 'action', value: (entry: AuditLog) => entry.action },
  { heading: 'resource type', value: (entry: AuditLog) => entry.resource_type },
  { heading: 'target', value: (entry: AuditLog) => entry.resource_target },
  { heading: 'status', value: (entry: AuditLog) => String(entry.status_code) },
  { heading: 'ip', value: (entry: AuditLog) => entry.ip },
  { heading: 'id', value: (entry: AuditLog) => entry.id, hidden: true },
  { heading: 'resource id', value: (entry: AuditLog) => entry.resource_id, hidden: true },
  { heading: 'organization', value: (entry: AuditLog) => entry.organization?.name ?? '', hidden: true },
  { heading: 'user agent', value: (entry: AuditLog) => entry.user_agent, hidden: true },
  { heading: 'request id', value: (entry: AuditLog) => entry.request_id, hidden: true },
];

/** A non-negative whole number given to an option, or undefined when the option was not given. */
function count(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d+$/.test(text)) throw new CliError(`${flag} takes a whole number, not "${text}".`);
  return Number(text);
}

/** `cove audit`: who did what, from the deployment's audit log (owners and auditors). */
export const auditCommand: CommandSpec = {
  name: 'audit',
  summary: 'Read the audit log',
  subcommands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'List audit log entries, newest first',
      options: [
        {
          flags: '-q, --search <query>',
          description:
            'Search, e.g. "resource_type:template action:delete username:alice date_from:2026-01-02" ' +
            '(also email:, resource_id:, date_to:, build_reason:, organization:)',
        },
        { flags: '--limit <n>', description: 'How many entries to show', default: '25' },
        { flags: '--offset <n>', description: 'How many of the newest entries to skip' },
      ],
      columns: AUDIT_COLUMNS,
      examples: ['cove audit list -q "resource_type:template action:delete"', 'cove audit list -q username:alice -o json'],
      async run(context, _args, options) {
        const limit = count(options['limit'], '--limit');
        const offset = count(options['offset'], '--offset');
        const page = await (
          await context.client()
        ).auditLogs({
          ...(typeof options['search'] === 'string' ? { q: options['search'] } : {}),
          ...(limit === undefined ? {} : { limit }),
          ...(offset === undefined ? {} : { offset }),
        });
        context.printData(page.audit_logs, AUDIT_COLUMNS);
      },
    },
  ],
};
