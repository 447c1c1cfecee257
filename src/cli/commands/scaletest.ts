import type { NameValue } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { cleanupRun } from '../scaletest/cleanup-run.js';
import { createWorkspaces } from '../scaletest/create-workspaces.js';
import { OperationStats } from '../scaletest/operation-stats.js';
import { REPORT_OPTIONS, RUN_OPTION, ScaletestRun, durationFlag, intFlag, interruptSignal, runFlag } from '../scaletest/scaletest-flags.js';
import { SCALETEST_COLUMNS } from '../scaletest/scaletest-report.js';
import { SIMULATED_TEMPLATE } from '../scaletest/scaletest-run.js';
import { dashboardCommand, workspaceTrafficCommand } from './scaletest-load.js';
import { listOption, parsePairs, repeatableOptions } from './templates-common.js';

/** `cove scaletest create-workspaces`. */
const createWorkspacesCommand: CommandSpec = {
  name: 'create-workspaces',
  summary: 'Create scale test users and a workspace for each',
  description:
    'Creates --count users named scaletest-<run id>-<n> in the organization and one workspace each from the template, ' +
    '--concurrency at a time, then waits for their agents. With --simulated-agents this command runs the agents itself ' +
    `(the agent protocol, without a machine) from the "${SIMULATED_TEMPLATE}" echo template, made when missing; they stay ` +
    'connected until the command ends. Prints the run id that the other subcommands and cleanup take with --run, and ' +
    'the latency of each step.',
  options: [
    { flags: '--count <n>', description: 'How many users and workspaces to create', default: '1' },
    { flags: '-t, --template <name>', description: `The template (default with --simulated-agents: ${SIMULATED_TEMPLATE})` },
    { flags: '-O, --org <organization>', description: 'The organization (default: the default organization)' },
    { flags: '--no-wait-for-agents', description: 'Do not wait for the agents to connect' },
    { flags: '--agent-timeout <duration>', description: 'How long to wait for the agents to connect', default: '5m' },
    { flags: '--simulated-agents', description: "Run the workspaces' agents in this command instead of on machines" },
    { flags: '--stay <duration>', description: 'With --simulated-agents, keep the agents connected this long before exiting' },
    ...REPORT_OPTIONS,
  ],
  columns: SCALETEST_COLUMNS,
  configure: repeatableOptions([
    { flags: '--parameter <name=value>', description: 'A rich parameter value for every workspace (repeatable)' },
  ]),
  examples: [
    'cove scaletest create-workspaces --count 100 --template docker --parameter cpus=2',
    'cove scaletest create-workspaces --count 1000 --simulated-agents --concurrency 20 -o json',
  ],
  async run(context, _args, options) {
    const client = await context.client();
    const stats = new OperationStats();
    const count = intFlag(options, 'count', '--count', 1);
    const simulatedAgents = options['simulatedAgents'] === true;
    const stayMs = typeof options['stay'] === 'string' ? durationFlag(options, 'stay', '--stay') : 0;
    if (stayMs > 0 && !simulatedAgents) throw new CliError('--stay keeps simulated agents connected: it needs --simulated-agents.');
    const parameters: NameValue[] = Object.entries(parsePairs(listOption(options, 'parameter'), '--parameter')).map(([name, value]) => ({
      name,
      value,
    }));
    const run = new ScaletestRun(context, 'create-workspaces', options, stats);
    let created = 0;
    await run.start(() => `${stats.summaries().find((s) => s.operation === 'build')?.count ?? created} of ${count} workspaces built`);
    const result = await createWorkspaces(
      client,
      {
        count,
        template: typeof options['template'] === 'string' ? options['template'] : undefined,
        organization: typeof options['org'] === 'string' ? options['org'] : undefined,
        parameters,
        concurrency: intFlag(options, 'concurrency', '--concurrency', 1),
        simulatedAgents,
        waitForAgents: options['waitForAgents'] !== false,
        agentTimeoutMs: durationFlag(options, 'agentTimeout', '--agent-timeout'),
      },
      stats,
    );
    created = result.workspaces.length;
    if (result.fleet && stayMs > 0) {
      const interrupt = interruptSignal(context);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, stayMs);
        interrupt.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      interrupt.release();
    }
    const counters = result.fleet?.counters;
    await result.fleet?.stop();
    if (!context.json) context.say(`Run ${result.runId}: ${created} of ${count} workspaces from template ${result.template.name}.`);
    return run.finish(result.runId, {
      template: result.template.name,
      users_created: stats.summaries().find((s) => s.operation === 'create user')?.count ?? 0,
      workspaces_created: created,
      agents_connected: result.agentsConnected,
      ...(counters
        ? { simulated_agents: { stats_sent: counters.statsSent, metadata_sent: counters.metadataSent, disconnects: counters.disconnects } }
        : {}),
    });
  },
};

/** `cove scaletest cleanup`. */
const cleanupCommand: CommandSpec = {
  name: 'cleanup',
  summary: 'Delete the scale test workspaces and users',
  description:
    'Deletes the workspaces of the scale test users (one run with --run, else every run), waiting for each delete build, ' +
    `then the users; once no scale test workspace is left, the "${SIMULATED_TEMPLATE}" template too.`,
  options: [RUN_OPTION, ...REPORT_OPTIONS],
  columns: SCALETEST_COLUMNS,
  examples: ['cove scaletest cleanup', 'cove scaletest cleanup --run 1f2e3d4c -o json'],
  async run(context, _args, options) {
    const client = await context.client();
    const stats = new OperationStats();
    const runId = runFlag(options);
    const run = new ScaletestRun(context, 'cleanup', options, stats);
    await run.start(() => 'deleting');
    const result = await cleanupRun(client, runId, intFlag(options, 'concurrency', '--concurrency', 1), stats);
    return run.finish(runId ?? 'all', {
      workspaces_deleted: result.workspacesDeleted,
      users_deleted: result.usersDeleted,
      template_deleted: result.templateDeleted,
    });
  },
};

/** `cove scaletest`: load a deployment as a team would, and measure it. */
export const scaletestCommand: CommandSpec = {
  name: 'scaletest',
  summary: 'Load a deployment with users, workspaces, terminal traffic and dashboard users, and measure it',
  description:
    'Creates scale test users and workspaces, drives terminal, SSH or app traffic and simulated dashboard users against ' +
    "them, and prints the p50/p95/p99 latency and errors of every operation, with the daemon's memory and CPU when its " +
    'metrics are reachable. --max-p95 and --max-errors make a run exit with 1 when broken, for CI. See docs/scaletest.md.',
  subcommands: [createWorkspacesCommand, workspaceTrafficCommand, dashboardCommand, cleanupCommand],
  examples: [
    'cove scaletest create-workspaces --count 10 --simulated-agents',
    'cove scaletest workspace-traffic --simulated-agents --duration 30s --max-p95 100',
    'cove scaletest dashboard --count 5 --duration 1m',
    'cove scaletest cleanup',
  ],
};
