import type { CoveClient, InsightsRange } from '../../sdk/client.js';
import { renderBars } from '../bar-chart.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec, OptionSpec } from '../command.js';
import { printJson, printTable } from '../output.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

const OFFSET_OPTION: OptionSpec = {
  flags: '--tz-offset <hours>',
  description: "Time zone of the report, in whole hours east of UTC (default: this machine's)",
};
const RANGE_OPTIONS: readonly OptionSpec[] = [
  { flags: '--start <date>', description: 'First day (YYYY-MM-DD, or RFC 3339 at midnight); default: 7 days before --end' },
  { flags: '--end <date>', description: 'End: a midnight (YYYY-MM-DD) or a whole hour of today (RFC 3339); default: the current hour' },
  { flags: '--template <names>', description: 'Only these templates (comma-separated names or ids)' },
  OFFSET_OPTION,
];

/** The offset to report in, in hours: `--tz-offset`, else this machine's (rounded to the hour). */
function offsetHours(options: Readonly<Record<string, unknown>>): number {
  const given = options['tzOffset'];
  if (given === undefined) return Math.round(-new Date().getTimezoneOffset() / 60);
  const hours = Number(given);
  if (!Number.isInteger(hours)) throw new CliError(`--tz-offset must be a whole number of hours, not "${String(given)}".`);
  return hours;
}

/** An instant as RFC 3339 in an offset of whole hours. */
function rfc3339(at: number, hours: number): string {
  const wall = new Date(at + hours * HOUR_MS).toISOString().slice(0, 19);
  if (hours === 0) return `${wall}Z`;
  return `${wall}${hours < 0 ? '-' : '+'}${String(Math.abs(hours)).padStart(2, '0')}:00`;
}

/** A date (midnight in the offset) or an RFC 3339 time, as an instant. */
function readTime(text: string, hours: number, flag: string): number {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) - hours * HOUR_MS : Date.parse(text);
  if (Number.isNaN(day)) throw new CliError(`${flag} must be a date (YYYY-MM-DD) or an RFC 3339 time, not "${text}".`);
  return day;
}

/** The report range from the options: by default the 7 days up to the current whole hour. */
async function rangeOf(client: CoveClient, options: Readonly<Record<string, unknown>>): Promise<InsightsRange> {
  const hours = offsetHours(options);
  const end = typeof options['end'] === 'string' ? readTime(options['end'], hours, '--end') : Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
  const endMidnight = Math.floor((end + hours * HOUR_MS) / DAY_MS) * DAY_MS - hours * HOUR_MS;
  const start = typeof options['start'] === 'string' ? readTime(options['start'], hours, '--start') : endMidnight - 7 * DAY_MS;
  const templates = typeof options['template'] === 'string' ? await templateIds(client, options['template']) : undefined;
  return { start_time: rfc3339(start, hours), end_time: rfc3339(end, hours), ...(templates ? { template_ids: templates } : {}) };
}

/** Template names or ids, as the comma-separated ids the API takes. */
async function templateIds(client: CoveClient, names: string): Promise<string> {
  const wanted = names
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const templates = await client.templates();
  return wanted
    .map((name) => {
      const found = templates.find((template) => template.id === name || template.name === name);
      if (!found) throw new CliError(`No template "${name}".`, { hint: 'Run "cove templates list" to see the templates you can see.' });
      return found.id;
    })
    .join(',');
}

/** Seconds as people read them: "2h 5m", "3m", "0m". */
function duration(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours}h ${minutes % 60}m` : `${minutes}m`;
}

/** Bars on a terminal, a plain table elsewhere (pipes, files). */
function printCounts(context: CommandContext, heading: readonly [string, string], rows: readonly { label: string; value: number }[]): void {
  if (context.io.stdout.isTTY === true) {
    const lines = renderBars(
      rows.map((row) => ({ label: row.label, value: row.value, caption: String(row.value) })),
      40,
      context.io.env['NO_COLOR'] === undefined,
    );
    for (const line of lines) context.io.stdout.write(`${line}\n`);
    return;
  }
  printTable(context.io, rows, [
    { heading: heading[0], value: (row) => row.label },
    { heading: heading[1], value: (row) => String(row.value) },
  ]);
}

/** `cove insights`: how the deployment and its templates are used. */
export const insightsCommand: CommandSpec = {
  name: 'insights',
  summary: 'Show daily active users, template usage and user activity',
  subcommands: [
    {
      name: 'daus',
      summary: 'Daily active users over the last 60 days',
      options: [OFFSET_OPTION],
      async run(context, _args, options) {
        const daus = await (await context.client()).insightsDaus(offsetHours(options));
        if (context.json) return printJson(context.io, daus);
        if (daus.entries.length === 0) return context.say('Nobody used a workspace in the last 60 days.');
        printCounts(
          context,
          ['date', 'users'],
          daus.entries.map((entry) => ({ label: entry.date, value: entry.amount })),
        );
      },
    },
    {
      name: 'templates',
      summary: 'Active users per day or week, and how templates were used: apps and parameter values',
      options: [...RANGE_OPTIONS, { flags: '--interval <interval>', description: 'day or week', default: 'day' }],
      async run(context, _args, options) {
        const client = await context.client();
        const interval = options['interval'] === 'week' ? 'week' : options['interval'] === 'day' ? 'day' : undefined;
        if (!interval) throw new CliError(`--interval must be day or week, not "${String(options['interval'])}".`);
        const insights = await client.templateInsights({ ...(await rangeOf(client, options)), interval });
        if (context.json) return printJson(context.io, insights);
        const { report } = insights;
        context.say(`${report.active_users} active user(s) from ${report.start_time} to ${report.end_time}`);
        context.say('');
        printCounts(
          context,
          [interval === 'day' ? 'day' : 'week of', 'users'],
          insights.interval_reports.map((entry) => ({ label: entry.start_time.slice(0, 10), value: entry.active_users })),
        );
        context.say('');
        printTable(context.io, report.apps_usage, [
          { heading: 'app', value: (app) => app.display_name },
          { heading: 'slug', value: (app) => app.slug },
          { heading: 'type', value: (app) => app.type },
          { heading: 'time used', value: (app) => duration(app.seconds) },
          { heading: 'times used', value: (app) => (app.type === 'builtin' ? '' : String(app.times_used)) },
        ]);
        if (report.parameters_usage.length === 0) return;
        context.say('');
        printTable(
          context.io,
          report.parameters_usage.flatMap((parameter) =>
            parameter.values.map((value) => ({ name: parameter.display_name || parameter.name, value: value.value, count: value.count })),
          ),
          [
            { heading: 'parameter', value: (row) => row.name },
            { heading: 'value', value: (row) => row.value },
            { heading: 'workspaces', value: (row) => String(row.count) },
          ],
        );
      },
    },
    {
      name: 'users',
      summary: 'Time each user spent in workspaces, with their connection latency',
      options: RANGE_OPTIONS,
      async run(context, _args, options) {
        const client = await context.client();
        const range = await rangeOf(client, options);
        const [activity, latency] = await Promise.all([client.userActivityInsights(range), client.userLatencyInsights(range)]);
        if (context.json) return printJson(context.io, { activity: activity.report, latency: latency.report });
        const latencyOf = new Map(latency.report.users.map((user) => [user.user_id, user.latency_ms]));
        const ms = (value: number | undefined) => (value === undefined || value < 0 ? '-' : `${value.toFixed(1)}ms`);
        printTable(context.io, activity.report.users, [
          { heading: 'user', value: (user) => user.username },
          { heading: 'time used', value: (user) => duration(user.seconds) },
          { heading: 'latency p50', value: (user) => ms(latencyOf.get(user.user_id)?.p50) },
          { heading: 'latency p95', value: (user) => ms(latencyOf.get(user.user_id)?.p95) },
        ]);
      },
    },
  ],
};
