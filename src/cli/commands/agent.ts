import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import type { CliIo } from '../io.js';

type AgentLogger = import('../../agent/index.js').AgentLogger;

/** `cove agent`: the workspace agent, run inside a workspace by its template. */
export const agentCommand: CommandSpec = {
  name: 'agent',
  summary: 'Run the workspace agent (inside a workspace)',
  description:
    'Run the workspace agent in the foreground: it connects to the deployment ($COVE_AGENT_URL or --url) ' +
    'with the agent token ($COVE_AGENT_TOKEN or --token), runs the start scripts and reports the ' +
    'workspace lifecycle. Logs go to standard error, and to $COVE_AGENT_LOG_DIR/cove-agent.log when ' +
    'that is set. Stops on SIGINT or SIGTERM after running the stop scripts.',
  configure: async (command: Command) => {
    // For tests: stop once the start scripts are done, as a signal would.
    command.addOption(new Option('--exit-after-start', 'Stop once the start scripts have finished').hideHelp());
  },
  examples: ['COVE_AGENT_URL=https://cove.example.com COVE_AGENT_TOKEN=... cove agent'],
  async run(context, _args, options) {
    const env = context.io.env;
    // --url and --token are global options; for this command they name the agent's deployment and token.
    const url = context.global.url ?? env['COVE_AGENT_URL'];
    const token = context.global.token ?? env['COVE_AGENT_TOKEN'];
    if (!url || !token) {
      const missing = [!url ? 'COVE_AGENT_URL' : undefined, !token ? 'COVE_AGENT_TOKEN' : undefined].filter(Boolean).join(' and ');
      throw new CliError(`The agent needs COVE_AGENT_URL and COVE_AGENT_TOKEN; ${missing} ${missing.includes(' and ') ? 'are' : 'is'} not set.`, {
        hint: 'Set them (the template does this for its agents), or pass --url and --token.',
      });
    }
    const logDir = env['COVE_AGENT_LOG_DIR'] || undefined;
    const logger = agentLogger(context.io, logDir);
    const { startAgent } = await import('../../agent/index.js');
    const agent = startAgent({ url, token, logger, env: { ...env }, ...(logDir ? { logDir } : {}) });
    logger.info({ url }, 'workspace agent started; stop it with Ctrl+C');
    if (options['exitAfterStart'] === true) void agent.waitForLifecycle('ready').then(() => process.emit('SIGTERM', 'SIGTERM'));
    await runUntilSignal(() => agent.stop(), logger);
    return 0;
  },
};

/** Resolves after `stop` finished, which starts at the first SIGINT or SIGTERM; a second one exits at once. */
async function runUntilSignal(stop: () => Promise<void>, logger: AgentLogger): Promise<void> {
  let stopping: Promise<void> | undefined;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    logger.info({ signal }, 'stopping the workspace agent');
    stopping = stop().finally(stopped);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await done;
    logger.info({}, 'workspace agent stopped');
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** One line per event on standard error (and in the log file): time, level, message, key=value fields. */
function agentLogger(io: CliIo, logDir: string | undefined): AgentLogger {
  const file = logDir ? openLogFile(logDir, io) : undefined;
  const write = (level: string) => (fields: Record<string, unknown>, message: string) => {
    const extra = Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${formatField(value)}`)
      .join(' ');
    const line = `${new Date().toISOString()} ${level} ${message}${extra ? ` ${extra}` : ''}\n`;
    io.stderr.write(line);
    if (file) {
      try {
        appendFileSync(file, line);
      } catch {
        // A full or vanished disk must not stop the agent; stderr still has the line.
      }
    }
  };
  return { info: write('INFO'), warn: write('WARN'), error: write('ERROR') };
}

function openLogFile(logDir: string, io: CliIo): string | undefined {
  try {
    mkdirSync(logDir, { recursive: true });
    return join(logDir, 'cove-agent.log');
  } catch (error) {
    io.stderr.write(`could not create the agent log directory ${logDir}: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  }
}

function formatField(value: unknown): string {
  const text = value instanceof Error ? value.message : typeof value === 'string' ? value : JSON.stringify(value);
  return /[\s"]/.test(text) ? JSON.stringify(text) : text;
}
