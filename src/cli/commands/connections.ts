import type { ConnectionLog } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import type { Column } from '../output.js';
import { humanTime } from '../output.js';

/** A span of seconds as people read it: `42s`, `3m05s`, `2h03m`. */
function span(fromIso: string, toIso: string): string {
  const seconds = Math.max(0, Math.round((Date.parse(toIso) - Date.parse(fromIso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** The exit status of a session, or the HTTP status of a web connection, when there is one. */
function exitCode(log: ConnectionLog): string {
  if (log.ssh_info?.exit_code !== undefined) return String(log.ssh_info.exit_code);
  if (log.web_info && log.web_info.status_code !== 0) return String(log.web_info.status_code);
  return '';
}

const CONNECTION_COLUMNS: readonly Column<ConnectionLog>[] = [
  { heading: 'time', value: (log) => humanTime(log.connect_time) },
  { heading: 'user', value: (log) => log.user?.username ?? '(anonymous)' },
  { heading: 'workspace', value: (log) => `${log.workspace_owner_username}/${log.workspace_name}` },
  { heading: 'agent', value: (log) => log.agent_name },
  { heading: 'type', value: (log) => log.type },
  { heading: 'ip', value: (log) => log.ip ?? '' },
  { heading: 'duration', value: (log) => (log.disconnect_time ? span(log.connect_time, log.disconnect_time) : 'ongoing') },
  { heading: 'bytes in', value: (log) => String(log.bytes_to_workspace) },
  { heading: 'bytes out', value: (log) => String(log.bytes_from_workspace) },
  { heading: 'exit code', value: (log) => exitCode(log) },
  { heading: 'ended', value: (log) => (log.disconnect_time ? humanTime(log.disconnect_time) : ''), hidden: true },
  { heading: 'reason', value: (log) => log.ssh_info?.disconnect_reason ?? '', hidden: true },
  { heading: 'app or port', value: (log) => log.web_info?.slug_or_port ?? '', hidden: true },
  { heading: 'id', value: (log) => log.id, hidden: true },
];

/** `cove connections`: the connection log of terminals, SSH sessions, forwarded ports and apps. */
export const connectionsCommand: CommandSpec = {
  name: 'connections',
  summary: 'Show who connected to workspaces (terminals, SSH, ports, apps)',
  subcommands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'List connections to workspaces, newest first (owners and auditors)',
      options: [
        {
          flags: '-q, --search <query>',
          description:
            'Filter: type:ssh|reconnecting_pty|port_forwarding|workspace_app, username:, user_email:, workspace_owner:, workspace_owner_email:, workspace_id:, organization:, connected_after:, connected_before:, status:ongoing|completed',
        },
        { flags: '-l, --limit <count>', description: 'At most this many connections', default: '25' },
      ],
      columns: CONNECTION_COLUMNS,
      examples: [
        'cove connections list',
        'cove connections list -q "type:ssh status:completed" -o json',
        'cove connections list -q username:alice -c time,type,ip',
      ],
      async run(context, _args, options) {
        const limit = Number(options['limit']);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
          throw new CliError(`--limit takes a whole number from 1 to 1000, not "${String(options['limit'])}".`);
        const q = typeof options['search'] === 'string' ? options['search'] : undefined;
        const page = await (await context.client()).connectionLogs({ ...(q !== undefined ? { q } : {}), limit });
        if (page.connection_logs.length === 0 && !context.json) {
          context.say('No connections match.');
          return;
        }
        context.printData(page.connection_logs, CONNECTION_COLUMNS);
      },
    },
  ],
};
