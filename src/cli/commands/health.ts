import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import { DeploymentTimeoutError, DeploymentUnreachableError } from '../../sdk/http-transport.js';
import { HEALTH_SECTIONS, type HealthReport, type HealthSection } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { healthExitCode, healthReportText } from '../health-report-lines.js';
import { printJson } from '../output.js';
import { timedOut } from '../request-timeout.js';

/** Exit status when the deployment cannot be reached at all. */
const UNREACHABLE = 2;

/** A request that never reached the deployment, as a CLI error with its own exit status. */
function unreachable(error: unknown, url: string): CliError | undefined {
  if (!(error instanceof DeploymentUnreachableError)) return undefined;
  if (error instanceof DeploymentTimeoutError) {
    const { message, hint } = timedOut(error, url);
    return new CliError(message, { hint, exitCode: UNREACHABLE });
  }
  const code = error.code;
  return new CliError(`Could not reach the deployment at ${url}${code ? ` (${code})` : ''}.`, {
    hint: 'Check the URL, and that "cove serve" is running there.',
    exitCode: UNREACHABLE,
  });
}

/** Asks for the report; a deployment that cannot be reached becomes exit status 2. */
async function fetchReport(client: CoveClient, force: boolean): Promise<HealthReport> {
  try {
    return await client.healthReport({ force });
  } catch (error) {
    throw unreachable(error, client.url) ?? error;
  }
}

function describe(error: unknown): string {
  if (error instanceof CliError || error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

function waitOrInterrupt(ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const onSignal = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      process.off('SIGINT', onSignal);
      resolve(true);
    }, ms);
    process.once('SIGINT', onSignal);
  });
}

const reportCommand: CommandSpec = {
  name: 'report',
  summary: "Show the deployment's health report",
  description:
    'Shows every section of the health report (access URL, database, WebSocket, relay, provisioner daemons, ' +
    'workspace proxies) with what its check measured and its warnings. On a terminal it is drawn in color; ' +
    'otherwise it is plain text, or the report as the API gives it with -o json. Exit status: 0 healthy, ' +
    '1 when a section that is not dismissed is at error, 2 when the deployment cannot be reached.',
  options: [
    { flags: '--force', description: 'Run the checks now instead of showing the last report', default: false },
    { flags: '-w, --watch', description: 'Run the checks again and redraw every --interval seconds until interrupted', default: false },
    { flags: '--interval <seconds>', description: 'Seconds between redraws with --watch', default: '5' },
  ],
  examples: ['cove health report', 'cove health report --watch', 'cove health report -o json'],
  async run(context, _args, options) {
    const interval = Number(options['interval']);
    if (!Number.isFinite(interval) || interval <= 0)
      throw new CliError(`--interval "${String(options['interval'])}" is not a number of seconds.`, { hint: 'For example --interval 2.' });
    const watch = options['watch'] === true;
    // A watched report that only repeated the cached one would never change: each redraw runs the checks.
    const force = options['force'] === true || watch;
    const client = await context.client();
    if (context.io.stdout.isTTY && !context.json) {
      // ink draws only its last frame, and without color, where a CI variable is set; a terminal is
      // attached, so this command draws live and in color whatever the environment says.
      delete process.env['CI'];
      delete process.env['CONTINUOUS_INTEGRATION'];
      const { drawHealthReport } = await import('../health-report-view.js');
      return drawHealthReport(context.io, () => fetchReport(client, force), {
        watchMs: watch ? interval * 1000 : undefined,
        describeError: describe,
      });
    }
    return printReports(context, client, force, watch ? interval * 1000 : undefined);
  },
};

/** Prints the report as text or JSON, once, or every `watchMs` until SIGINT. */
async function printReports(context: CommandContext, client: CoveClient, force: boolean, watchMs: number | undefined): Promise<number> {
  for (;;) {
    let code: number;
    try {
      const report = await fetchReport(client, force);
      if (context.json) printJson(context.io, report);
      else context.io.stdout.write(healthReportText(report));
      code = healthExitCode(report);
    } catch (error) {
      if (watchMs === undefined) throw error;
      context.io.stderr.write(`error: ${describe(error)}\n`);
      code = UNREACHABLE;
    }
    if (watchMs === undefined || !(await waitOrInterrupt(watchMs))) return code;
    if (!context.json) context.io.stdout.write('\n');
  }
}

/**
 * Each section's title in `cove health report` (health-report-lines.ts). The report says `Relay`
 * where the API and the reference's settings say `DERP`: both names are accepted.
 */
const PRINTED_TITLES: Readonly<Record<HealthSection, string>> = {
  AccessURL: 'Access URL',
  Database: 'Database',
  Websocket: 'WebSocket',
  DERP: 'Relay',
  ProvisionerDaemons: 'Provisioner daemons',
  WorkspaceProxy: 'Workspace proxies',
};

/** Case, spaces, dashes and underscores aside: `Access URL`, `access_url` and `AccessURL` are one name. */
function normalized(text: string): string {
  return text.toLowerCase().replace(/[\s_-]+/g, '');
}

/**
 * A section by its name in the settings and the reference (`DERP`, `AccessURL`), by its title in
 * the report (`Relay`, "Access URL"), or by its field in the report (`derp`, `provisioner_daemons`).
 */
function sectionNamed(text: string): HealthSection {
  const wanted = normalized(text);
  const found = HEALTH_SECTIONS.find((name) => normalized(name) === wanted || normalized(PRINTED_TITLES[name]) === wanted);
  if (!found)
    throw new CliError(`"${text}" is not a section of the health report.`, {
      hint: `Use one of ${HEALTH_SECTIONS.join(', ')}, or its title in the report (${Object.values(PRINTED_TITLES).join(', ')}).`,
    });
  return found;
}

function settingsChange(name: 'dismiss' | 'undismiss'): CommandSpec {
  return {
    name,
    summary: name === 'dismiss' ? 'Dismiss a section: shown as such, left out of the overall verdict' : 'Count a dismissed section again',
    arguments: [
      {
        name: 'section',
        description: `${HEALTH_SECTIONS.join(', ')}; or the title the report prints (Relay for DERP, "Access URL", …)`,
        required: true,
      },
    ],
    async run(context, [text = '']) {
      const section = sectionNamed(text);
      const client = await context.client();
      const current = (await client.healthSettings()).dismissed_healthchecks;
      const next = name === 'dismiss' ? [...new Set([...current, section])] : current.filter((s) => s !== section);
      const saved = await client.updateHealthSettings({ dismissed_healthchecks: next });
      if (context.json) printJson(context.io, saved);
      else
        context.say(
          `${section} is ${name === 'dismiss' ? 'dismissed' : 'counted again'}. Dismissed: ${saved.dismissed_healthchecks.join(', ') || 'none'}.`,
        );
    },
  };
}

const settingsCommand: CommandSpec = {
  name: 'settings',
  summary: 'Show or change which health report sections are dismissed',
  async run(context) {
    const settings = await (await context.client()).healthSettings();
    if (context.json) printJson(context.io, settings);
    else context.say(`Dismissed: ${settings.dismissed_healthchecks.join(', ') || 'none'}.`);
  },
  subcommands: [settingsChange('dismiss'), settingsChange('undismiss')],
};

/** `cove health`: the deployment's health report and its settings. */
export const healthCommand: CommandSpec = {
  name: 'health',
  summary: "Show the deployment's health report and dismiss sections of it",
  subcommands: [reportCommand, settingsCommand],
};
