import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import type { Workspace } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { ArgumentSpec, CommandContext, CommandSpec } from '../command.js';
import { readDurationFlag } from '../duration-flag.js';
import { humanTime, printJson } from '../output.js';
import { parseWorkspaceRef, resolveWorkspace } from '../workspace-ref.js';
import { parseAutostartSchedule } from '../autostart-schedule.js';

/** A workspace's schedule as `schedule ... -o json` prints it; absent settings are null, so scripts see one shape. */
interface ScheduleSummary {
  readonly workspace_id: string;
  /** `owner/name`. */
  readonly workspace: string;
  readonly autostart_schedule: string | null;
  readonly next_start_at: string | null;
  readonly ttl_ms: number | null;
  /** When the running workspace stops, unless extended or bumped by activity. */
  readonly deadline: string | null;
  /** The latest the deadline can be moved to, when the template sets one. */
  readonly max_deadline: string | null;
}

const workspaceArgument: ArgumentSpec = { name: 'workspace', description: 'NAME or OWNER/NAME', required: true };

/** The word that turns a schedule off, in `start` and `stop` alike. */
const MANUAL = 'manual';

/** The workspace a command names, with the label its messages use (what the user typed). */
async function target(client: CoveClient, text: string): Promise<{ readonly workspace: Workspace; readonly label: string }> {
  const ref = parseWorkspaceRef(text);
  return { workspace: await resolveWorkspace(client, ref), label: ref.text };
}

/** A time from the wire, or null when absent or Go's zero time. */
function timeOrNull(iso: string | null | undefined): string | null {
  return iso === undefined || iso === null || iso === '' || iso.startsWith('0001-') ? null : iso;
}

function summarize(workspace: Workspace): ScheduleSummary {
  // A stop build carries no deadline worth showing: the workspace is not running towards one.
  const build = workspace.latest_build.transition === 'start' ? workspace.latest_build : undefined;
  return {
    workspace_id: workspace.id,
    workspace: `${workspace.owner_name}/${workspace.name}`,
    autostart_schedule: workspace.autostart_schedule || null,
    next_start_at: timeOrNull(workspace.next_start_at),
    ttl_ms: workspace.ttl_ms || null,
    deadline: timeOrNull(build?.deadline),
    max_deadline: timeOrNull(build?.max_deadline),
  };
}

/** Milliseconds as people write them: 8h, 1h30m, 45m, 30s. */
function shortDuration(ms: number): string {
  const parts: [number, string][] = [
    [Math.floor(ms / 86_400_000), 'd'],
    [Math.floor((ms % 86_400_000) / 3_600_000), 'h'],
    [Math.floor((ms % 3_600_000) / 60_000), 'm'],
    [Math.floor((ms % 60_000) / 1000), 's'],
  ];
  const text = parts
    .filter(([value]) => value > 0)
    .map(([value, unit]) => `${value}${unit}`)
    .join('');
  return text || `${ms}ms`;
}

function stopsAt(workspace: Workspace, summary: ScheduleSummary): string {
  if (summary.deadline)
    return `${humanTime(summary.deadline)}${summary.max_deadline ? ` (at the latest ${humanTime(summary.max_deadline)})` : ''}`;
  const status = workspace.latest_build.status;
  return status === 'running' ? 'only when stopped by hand' : `not running (${status})`;
}

/** Prints the schedule as aligned `key: value` lines, or the summary under `-o json`. */
function printSchedule(context: CommandContext, workspace: Workspace, warnings: readonly string[] = []): void {
  const summary = summarize(workspace);
  if (context.json) {
    printJson(context.io, summary);
    return;
  }
  const rows: [string, string][] = [
    ['workspace', summary.workspace],
    ['autostart', summary.autostart_schedule ?? MANUAL],
    ['next start', summary.next_start_at ? humanTime(summary.next_start_at) : 'none'],
    ['stops after', summary.ttl_ms ? shortDuration(summary.ttl_ms) : MANUAL],
    ['stops at', stopsAt(workspace, summary)],
  ];
  const width = Math.max(...rows.map(([key]) => key.length));
  for (const [key, value] of rows) context.io.stdout.write(`${`${key}:`.padEnd(width + 2)}${value}\n`);
  for (const warning of warnings) context.io.stdout.write(`\n${warning}\n`);
}

/**
 * A refusal the user can fix, with the API's message and its field details kept in one line,
 * and what to try instead.
 */
function refusal(error: unknown, hint: string): unknown {
  if (!(error instanceof ApiError) || error.status !== 400) return error;
  const details = (error.body.validations ?? []).map((validation) => validation.detail).join('; ');
  return new CliError(details ? `${error.message.replace(/\.$/, '')}: ${details}.` : error.message, { hint });
}

/** Template settings that forbid a schedule are checked first, so the error can say who may change them. */
async function requireTemplateAllows(
  client: CoveClient,
  workspace: Workspace,
  setting: 'allow_user_autostart' | 'allow_user_autostop',
): Promise<void> {
  const template = await client.template(workspace.template_id);
  if (template[setting]) return;
  const what = setting === 'allow_user_autostart' ? 'autostart schedules' : 'custom stop timers';
  const flag = setting === 'allow_user_autostart' ? '--allow-user-autostart' : '--allow-user-autostop';
  throw new CliError(`Template "${template.name}" does not allow ${what}.`, {
    hint: `A template admin can allow them with "cove templates edit ${template.name} ${flag}".`,
  });
}

/** Reads a positive duration, or a clear error naming the argument. */
function positiveDuration(text: string, what: string, extra = ''): number {
  const ms = readDurationFlag(text, what);
  if (ms === undefined || ms <= 0)
    throw new CliError(`${what} "${text}" is not a duration.`, { hint: `Write it like 8h, 90m or 1h30m${extra}.` });
  return ms;
}

/** The columns of `cove schedule show` without a workspace: one row a workspace, as the reference lists them. */
const SCHEDULE_COLUMNS = [
  { heading: 'workspace', value: (row: ScheduleRow) => row.summary.workspace },
  { heading: 'starts at', value: (row: ScheduleRow) => row.summary.autostart_schedule ?? '' },
  { heading: 'starts next', value: (row: ScheduleRow) => (row.summary.next_start_at ? humanTime(row.summary.next_start_at) : '') },
  { heading: 'stops after', value: (row: ScheduleRow) => (row.summary.ttl_ms ? shortDuration(row.summary.ttl_ms) : '') },
  { heading: 'stops next', value: (row: ScheduleRow) => (row.summary.deadline ? humanTime(row.summary.deadline) : '') },
];

/** A row of the list: the summary, which is also what `-o json` prints. */
interface ScheduleRow {
  readonly summary: ScheduleSummary;
}

/** `cove schedule show`: autostart, next start, stop timer and current deadline; of every workspace of yours without a name. */
const showCommand: CommandSpec = {
  name: 'show',
  summary: "Show a workspace's autostart and autostop schedule, or those of your workspaces",
  description:
    'With a workspace, its schedule in full. Without one, a table of the schedules of your ' +
    'workspaces (--all: of every workspace you can see; --search: of those the query matches), ' +
    'as the reference lists them.',
  arguments: [{ name: 'workspace', description: 'NAME or OWNER/NAME (default: list them)' }],
  options: [
    { flags: '-a, --all', description: "Every user's workspaces you can see, not only yours", default: false },
    { flags: '--search <query>', description: 'Filter like the API: "owner:alice template:python" (default: owner:me)' },
  ],
  columns: SCHEDULE_COLUMNS,
  examples: ['cove schedule show dev', 'cove schedule show alice/dev -o json', 'cove schedule show', 'cove schedule show --all'],
  async run(context, [name], options) {
    const client = await context.client();
    if (name === undefined) return listSchedules(context, client, options);
    const { workspace, label } = await target(client, name);
    const warnings: string[] = [];
    if (workspace.autostart_schedule && !context.json && (await client.resolveAutostart(workspace.id)).parameter_mismatch) {
      warnings.push(
        `warning: the next autostart will fail: the active template version needs new parameter values; run "cove update ${label}".`,
      );
    }
    printSchedule(context, workspace, warnings);
    return 0;
  },
};

/** The schedules of the workspaces the filter finds, as a table, or their summaries under `-o json`. */
async function listSchedules(context: CommandContext, client: CoveClient, options: Readonly<Record<string, unknown>>): Promise<number> {
  const search = typeof options['search'] === 'string' ? options['search'] : undefined;
  const q = search ?? (options['all'] === true ? undefined : 'owner:me');
  const { workspaces } = await client.workspaces(q === undefined ? {} : { q });
  // Sorted by owner/name, as the reference sorts its table.
  const rows = workspaces
    .map((workspace) => ({ summary: summarize(workspace) }))
    .sort((a, b) => a.summary.workspace.localeCompare(b.summary.workspace));
  if (context.json) {
    printJson(
      context.io,
      rows.map((row) => row.summary),
    );
    return 0;
  }
  if (rows.length === 0) {
    context.say(q === 'owner:me' ? 'You have no workspaces yet.' : 'No workspace matches.');
    return 0;
  }
  context.printTable(rows, SCHEDULE_COLUMNS);
  return 0;
}

/** `cove schedule start`: sets the autostart schedule, or clears it with `manual`. */
const startCommand: CommandSpec = {
  name: 'start',
  summary: 'Start a workspace on a schedule, or only by hand ("manual")',
  description:
    'Set when the workspace starts on its own: TIME [DAYS] [ZONE], with a 12- or 24-hour time ' +
    '(9:30AM, 09:30, 17:00), days as cron writes them (Mon-Fri, Sat,Sun, 1-5; every day when ' +
    'left out) and an IANA zone (default: $TZ, else the local zone). A cron schedule of five ' +
    'fields with an optional CRON_TZ=ZONE prefix is taken as well; "manual" turns autostart off.',
  arguments: [
    workspaceArgument,
    { name: 'schedule', description: '"9:30AM Mon-Fri Europe/Dublin", "CRON_TZ=Europe/Dublin 30 9 * * 1-5", or manual', variadic: true },
  ],
  examples: [
    'cove schedule start dev 9:30AM Mon-Fri Europe/Dublin',
    'cove schedule start dev "09:30 Mon-Fri"',
    'cove schedule start dev "CRON_TZ=Europe/London 30 9 * * 1-5"',
    'cove schedule start dev manual',
  ],
  async run(context, [name = '', ...words], _options) {
    if (words.length === 0)
      throw new CliError('Say when the workspace should start.', { hint: 'e.g. "cove schedule start dev 9:30AM Mon-Fri", or "manual".' });
    const manual = words.length === 1 && words[0]?.trim().toLowerCase() === MANUAL;
    const schedule = manual ? null : parseAutostartSchedule(words, context.io.env);
    const client = await context.client();
    const { workspace, label } = await target(client, name);
    if (schedule !== null) await requireTemplateAllows(client, workspace, 'allow_user_autostart');
    await client.updateWorkspaceAutostart(workspace.id, schedule).catch((error: unknown) => {
      throw refusal(
        error,
        'Write it as TIME [DAYS] [ZONE] ("9:30AM Mon-Fri Europe/London"), as cron ("CRON_TZ=Europe/London 30 9 * * 1-5"), or "manual".',
      );
    });
    const updated = await client.workspace(workspace.id);
    if (context.json) printJson(context.io, summarize(updated));
    else if (schedule === null) context.say(`Workspace "${label}" no longer starts on a schedule.`);
    else
      context.say(
        `Workspace "${label}" starts on "${schedule}"${updated.next_start_at ? `; next at ${humanTime(updated.next_start_at)}` : ''}.`,
      );
    return 0;
  },
};

/** `cove schedule stop`: sets how long the workspace runs after each start, or clears it with `manual`. */
const stopCommand: CommandSpec = {
  name: 'stop',
  summary: 'Stop a workspace a while after each start, or only by hand ("manual")',
  description:
    'Set how long the workspace runs after each start (at least a minute, under 30 days). It takes ' +
    'effect from the next start; "cove schedule extend" moves the current deadline. "manual" turns ' +
    'autostop off, and also lifts the current deadline.',
  arguments: [workspaceArgument, { name: 'duration', description: 'e.g. 8h or 1h30m, or manual', required: true }],
  examples: ['cove schedule stop dev 8h', 'cove schedule stop dev manual'],
  async run(context, [name = '', text = ''], _options) {
    const ttl = text.trim().toLowerCase() === MANUAL ? null : positiveDuration(text, 'Stop timer', ', or "manual"');
    const client = await context.client();
    const { workspace, label } = await target(client, name);
    await requireTemplateAllows(client, workspace, 'allow_user_autostop');
    await client.updateWorkspaceTtl(workspace.id, ttl).catch((error: unknown) => {
      throw refusal(error, 'Give a duration from 1m to under 30 days, like 8h, or "manual".');
    });
    if (context.json) printJson(context.io, summarize(await client.workspace(workspace.id)));
    else if (ttl === null) context.say(`Workspace "${label}" no longer stops on its own.`);
    else context.say(`Workspace "${label}" stops ${shortDuration(ttl)} after each start, from its next start on.`);
    return 0;
  },
};

/** Why a workspace has no deadline to move, when it has none. */
function requireDeadline(workspace: Workspace, label: string): void {
  const build = workspace.latest_build;
  if (build.transition !== 'start' || build.status !== 'running') {
    throw new CliError(`Workspace "${label}" is not running (it is ${build.status}).`, {
      hint: `Only a running workspace has a deadline; start it with "cove start ${label}".`,
    });
  }
  if (!timeOrNull(build.deadline)) {
    throw new CliError(`Workspace "${label}" has no deadline to extend: it stops only by hand.`, {
      hint: `Set a stop timer with "cove schedule stop ${label} 8h"; it applies from the next start.`,
    });
  }
}

/** `cove schedule extend`: moves the running workspace's deadline to now plus a duration. */
const extendCommand: CommandSpec = {
  name: 'extend',
  aliases: ['override-stop'],
  summary: 'Keep a running workspace up for a while longer',
  description: "Move the running workspace's deadline to now plus the duration (at least 30 minutes, and not past its max deadline).",
  arguments: [workspaceArgument, { name: 'duration', description: 'How long from now, e.g. 2h', required: true }],
  examples: ['cove schedule extend dev 2h'],
  async run(context, [name = '', text = ''], _options) {
    const ms = positiveDuration(text, 'Extension');
    const client = await context.client();
    const { workspace, label } = await target(client, name);
    requireDeadline(workspace, label);
    const deadline = new Date(Date.now() + ms).toISOString();
    await client.extendWorkspace(workspace.id, deadline).catch((error: unknown) => {
      throw refusal(error, 'Extend by at least 30m; see the latest possible stop with "cove schedule show".');
    });
    const updated = await client.workspace(workspace.id);
    if (context.json) printJson(context.io, summarize(updated));
    else context.say(`Workspace "${label}" now stops at ${humanTime(updated.latest_build.deadline ?? deadline)}.`);
    return 0;
  },
};

/** `cove schedule`: when a workspace starts and stops on its own. */
export const scheduleCommand: CommandSpec = {
  name: 'schedule',
  summary: 'Show and set when a workspace starts and stops on its own',
  description:
    'A workspace can start on a weekly schedule ("schedule start"), stop a while after each start ' +
    '("schedule stop"), and have its current deadline moved ("schedule extend"). The template may ' +
    'forbid custom schedules.',
  subcommands: [showCommand, startCommand, stopCommand, extendCommand],
};
