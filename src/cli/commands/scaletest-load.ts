import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { SimulatedAgentFleet, simulatedAgentTokens } from '../scaletest/agent-fleet.js';
import { dashboardUsers, runDashboard } from '../scaletest/dashboard-load.js';
import { OperationStats } from '../scaletest/operation-stats.js';
import { REPORT_OPTIONS, RUN_OPTION, ScaletestRun, durationFlag, intFlag, interruptSignal, runFlag } from '../scaletest/scaletest-flags.js';
import { SCALETEST_COLUMNS } from '../scaletest/scaletest-report.js';
import { findRunUsers, findRunWorkspaces } from '../scaletest/scaletest-run.js';
import type { TrafficMode } from '../scaletest/traffic-connection.js';
import { ECHO_OPERATION, runWorkspaceTraffic, type TrafficTotals } from '../scaletest/workspace-traffic.js';

const NO_RUN_HINT = 'Create some with "cove scaletest create-workspaces --count N" first, or check --run.';

/** `cove scaletest workspace-traffic`. */
export const workspaceTrafficCommand: CommandSpec = {
  name: 'workspace-traffic',
  summary: 'Send traffic to the scale test workspaces and measure its echo',
  description:
    'Opens a terminal (the reconnecting PTY WebSocket, running cat), an SSH session (--ssh) or a WebSocket to an app (--app) ' +
    'on each scale test workspace, writes --bytes-per-tick bytes every --tick-interval for --duration, each write ending ' +
    'with a marker, and measures the time until each marker comes back. With --simulated-agents this command first ' +
    "connects the workspaces' simulated agents (created with create-workspaces --simulated-agents), which echo terminal " +
    "input, so the figures are the deployment relay's own.",
  options: [
    RUN_OPTION,
    { flags: '--count <n>', description: 'Use at most this many workspaces (default: all of them)' },
    { flags: '--bytes-per-tick <n>', description: 'Bytes written to each workspace every tick', default: '1024' },
    { flags: '--tick-interval <duration>', description: 'How often each workspace is written to', default: '100ms' },
    { flags: '--duration <duration>', description: 'How long the traffic runs', default: '10s' },
    { flags: '--ssh', description: 'Send the traffic over SSH (a session running cat) instead of the terminal' },
    { flags: '--app <slug>', description: 'Send the traffic over a WebSocket to this app, which must echo what it receives' },
    { flags: '--simulated-agents', description: "Run the workspaces' agents in this command (workspaces made with --simulated-agents)" },
    ...REPORT_OPTIONS,
  ],
  columns: SCALETEST_COLUMNS,
  examples: [
    'cove scaletest workspace-traffic --simulated-agents --duration 30s --max-p95 100',
    'cove scaletest workspace-traffic --run 1f2e3d4c --ssh --bytes-per-tick 2048 --tick-interval 200ms',
  ],
  async run(context, _args, options) {
    const client = await context.client();
    const runId = runFlag(options);
    const bytesPerTick = intFlag(options, 'bytesPerTick', '--bytes-per-tick', 16);
    const tickIntervalMs = durationFlag(options, 'tickInterval', '--tick-interval');
    const durationMs = durationFlag(options, 'duration', '--duration');
    const concurrency = intFlag(options, 'concurrency', '--concurrency', 1);
    if (options['ssh'] === true && typeof options['app'] === 'string')
      throw new CliError('--ssh and --app are two kinds of traffic: give one.');
    const mode: TrafficMode =
      options['ssh'] === true
        ? { kind: 'ssh' }
        : typeof options['app'] === 'string'
          ? { kind: 'app', app: options['app'] }
          : { kind: 'pty' };
    const simulated = options['simulatedAgents'] === true;
    if (simulated && mode.kind !== 'pty')
      throw new CliError('Simulated agents answer terminals only.', {
        hint: 'Leave out --ssh and --app, or use workspaces whose agents run on machines.',
      });
    let workspaces = await findRunWorkspaces(client, runId);
    if (options['count'] !== undefined) workspaces = workspaces.slice(0, intFlag(options, 'count', '--count', 1));
    if (workspaces.length === 0)
      throw new CliError(`There are no scale test workspaces${runId ? ` in run ${runId}` : ''}.`, { hint: NO_RUN_HINT });
    const stats = new OperationStats();
    const totals: TrafficTotals = { connections: 0, bytesSent: 0, bytesReceived: 0, echoes: 0 };
    let fleet: SimulatedAgentFleet | undefined;
    if (simulated) {
      fleet = new SimulatedAgentFleet(client.url, await simulatedAgentTokens(client, workspaces, concurrency));
      const connected = await fleet.connect(concurrency, 60_000);
      if (connected < workspaces.length) {
        await fleet.stop();
        throw new CliError(`Only ${connected} of ${workspaces.length} simulated agents connected.`, {
          hint: 'Is another command running the same simulated agents? Each token may be connected once.',
        });
      }
      // The measure starts once every agent is in: connecting is create-workspaces' figure.
    }
    const run = new ScaletestRun(context, 'workspace-traffic', options, stats);
    const interrupt = interruptSignal(context);
    await run.start(() => `${totals.connections} connections, ${totals.echoes} echoes`);
    try {
      await runWorkspaceTraffic(
        client,
        workspaces,
        { mode, bytesPerTick, tickIntervalMs, durationMs, concurrency, signal: interrupt.signal },
        stats,
        totals,
      );
    } finally {
      interrupt.release();
      await fleet?.stop();
    }
    const seconds = durationMs / 1000;
    return run.finish(runId ?? 'all', {
      traffic: mode.kind === 'pty' ? 'terminal' : mode.kind === 'ssh' ? 'ssh' : `app ${mode.app}`,
      connections: totals.connections,
      echoes: totals.echoes,
      bytes_sent: totals.bytesSent,
      bytes_received: totals.bytesReceived,
      write_bytes_per_second: Math.round(totals.bytesSent / seconds),
      ...(fleet ? { simulated_agents_echoed_bytes: fleet.counters.bytesEchoed } : {}),
      echo_operation: ECHO_OPERATION,
    });
  },
};

/** `cove scaletest dashboard`. */
export const dashboardCommand: CommandSpec = {
  name: 'dashboard',
  summary: 'Simulate people using the dashboard, as the scale test users',
  description:
    "Signs in as --count scale test users (a session of each one's own) and, every --interval for --duration, loads what " +
    "the dashboard loads for the workspaces page and a workspace's page: the user, their appearance, the entitlements, " +
    'the workspaces and templates lists, one workspace, its builds and its build log. Each request is timed under its route.',
  options: [
    RUN_OPTION,
    { flags: '--count <n>', description: 'How many people (at most one per scale test user)', default: '1' },
    { flags: '--interval <duration>', description: 'How often each person loads the pages', default: '5s' },
    { flags: '--duration <duration>', description: 'How long the people keep at it', default: '30s' },
    ...REPORT_OPTIONS,
  ],
  columns: SCALETEST_COLUMNS,
  examples: ['cove scaletest dashboard --count 50 --interval 2s --duration 1m --max-p95 300'],
  async run(context, _args, options) {
    const client = await context.client();
    const runId = runFlag(options);
    const count = intFlag(options, 'count', '--count', 1);
    const users = await findRunUsers(client, runId);
    if (users.length === 0) throw new CliError(`There are no scale test users${runId ? ` in run ${runId}` : ''}.`, { hint: NO_RUN_HINT });
    if (users.length < count && !context.json) context.say(`Only ${users.length} scale test users: ${users.length} people, not ${count}.`);
    const people = await dashboardUsers(client, users, count);
    const stats = new OperationStats();
    const run = new ScaletestRun(context, 'dashboard', options, stats);
    const interrupt = interruptSignal(context);
    let pages = 0;
    await run.start(() => `${people.length} people`);
    try {
      pages = await runDashboard(
        people,
        {
          intervalMs: durationFlag(options, 'interval', '--interval'),
          durationMs: durationFlag(options, 'duration', '--duration'),
          signal: interrupt.signal,
        },
        stats,
      );
    } finally {
      interrupt.release();
    }
    const api = stats.combined('all requests', () => true);
    return run.finish(runId ?? 'all', { people: people.length, page_loads: pages, api_p95_ms: api.p95_ms });
  },
};
