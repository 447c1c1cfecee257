import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { agentCredentials } from '../agent-credentials.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import type { CliIo } from '../io.js';

type AgentLogger = import('../../agent/index.js').AgentLogger;

/** The ways the agent may authenticate; the agent module has the same list (the CLI loads it lazily). */
const AUTH_METHODS = ['token', 'aws-instance-identity', 'azure-instance-identity', 'google-instance-identity'] as const;
type AuthMethod = (typeof AUTH_METHODS)[number];

/** `cove agent`: the workspace agent, run inside a workspace by its template. */
export const agentCommand: CommandSpec = {
  name: 'agent',
  summary: 'Run the workspace agent (inside a workspace)',
  description:
    'Run the workspace agent in the foreground: it connects to the deployment ($COVE_AGENT_URL or --url) ' +
    'with the agent token ($COVE_AGENT_TOKEN or --token), runs the start scripts and reports the ' +
    'workspace lifecycle. Logs go to standard error, and to $COVE_AGENT_LOG_DIR/cove-agent.log when ' +
    'that is set. Stops on SIGINT or SIGTERM after running the stop scripts. On a cloud machine, ' +
    '--auth aws-instance-identity, azure-instance-identity or google-instance-identity ($COVE_AGENT_AUTH) ' +
    "gets the token from the deployment in exchange for the instance identity that the cloud's metadata " +
    'service signs ($COVE_AGENT_METADATA_URL overrides where that service is).',
  configure: async (command: Command) => {
    // For tests: stop once the start scripts are done, as a signal would.
    command.addOption(new Option('--exit-after-start', 'Stop once the start scripts have finished').hideHelp());
    command.addOption(
      new Option('--auth <method>', 'How the agent authenticates ($COVE_AGENT_AUTH; default token)').choices([...AUTH_METHODS]),
    );
  },
  examples: [
    'COVE_AGENT_URL=https://cove.example.com COVE_AGENT_TOKEN=... cove agent',
    'COVE_AGENT_URL=https://cove.example.com cove agent --auth aws-instance-identity',
  ],
  async run(context, _args, options) {
    const env = context.io.env;
    // --url and --token are global options; for this command they name the agent's deployment and token.
    const url = context.global.url ?? env['COVE_AGENT_URL'];
    const auth = (options['auth'] as string | undefined) ?? (env['COVE_AGENT_AUTH'] || 'token');
    if (!isAuthMethod(auth)) {
      throw new CliError(`COVE_AGENT_AUTH is "${auth}", which is not a way the agent can authenticate.`, {
        hint: `Use one of: ${AUTH_METHODS.join(', ')}.`,
      });
    }
    if (auth !== 'token') {
      if (!url) throw new CliError('The agent needs COVE_AGENT_URL; it is not set.', { hint: 'Set it, or pass --url.' });
      const logDir = env['COVE_AGENT_LOG_DIR'] || undefined;
      const logger = agentLogger(context.io, logDir);
      // A newer build on this same instance makes the deployment refuse the token: exchange again.
      for (;;) {
        const token = await exchangeInstanceIdentity(url, auth, env['COVE_AGENT_METADATA_URL'] || undefined, logger);
        if (token === undefined) {
          logger.info({}, 'stopped before the deployment issued a token');
          return 0;
        }
        if (
          (await runAgent(context.io, {
            url,
            token,
            logger,
            logDir,
            exitAfterStart: options['exitAfterStart'] === true,
            untilRefused: true,
          })) === 'stopped'
        )
          return 0;
        logger.info(
          { method: auth },
          'the deployment no longer accepts this token (a newer build replaced the agent); exchanging the instance identity again',
        );
      }
    }
    const credentials = agentCredentials(
      context,
      'The agent needs COVE_AGENT_URL and COVE_AGENT_TOKEN; ',
      'Set them (the template does this for its agents), or pass --url and --token.',
    );
    const logDir = env['COVE_AGENT_LOG_DIR'] || undefined;
    await runAgent(context.io, {
      ...credentials,
      logger: agentLogger(context.io, logDir),
      logDir,
      exitAfterStart: options['exitAfterStart'] === true,
      untilRefused: false,
    });
    return 0;
  },
};

function isAuthMethod(value: string): value is AuthMethod {
  return (AUTH_METHODS as readonly string[]).includes(value);
}

/**
 * Runs the agent with its token until a signal (or, for tests, until the start scripts are done);
 * with `untilRefused`, also until the deployment refuses the token, when it stops the agent and
 * answers `refused`.
 */
interface AgentRun {
  readonly url: string;
  readonly token: string;
  readonly logger: AgentLogger;
  readonly logDir: string | undefined;
  readonly exitAfterStart: boolean;
  readonly untilRefused: boolean;
}

async function runAgent(io: CliIo, { url, token, logger, logDir, exitAfterStart, untilRefused }: AgentRun): Promise<'stopped' | 'refused'> {
  const { startAgent, gitAskpassProgram } = await import('../../agent/index.js');
  const gitAskpass = gitAskpassProgram();
  let refuse: () => void = () => undefined;
  const refused = new Promise<void>((resolve) => (refuse = resolve));
  const agent = startAgent({
    url,
    token,
    logger,
    env: { ...io.env },
    ...(gitAskpass ? { gitAskpass } : {}),
    ...(logDir ? { logDir } : {}),
    ...(untilRefused ? { onUnauthorized: refuse } : {}),
  });
  logger.info({ url }, 'workspace agent started; stop it with Ctrl+C');
  if (exitAfterStart) void agent.waitForLifecycle('ready').then(() => process.emit('SIGTERM', 'SIGTERM'));
  if ((await runUntilSignal(() => agent.stop(), logger, refused)) === 'signal') return 'stopped';
  await agent.stop();
  return 'refused';
}

/**
 * Gets the agent token for the instance identity, retrying while the metadata service or the
 * deployment cannot answer yet (or the build that knows this instance is still running). Returns
 * undefined when a signal stops it first; a refused identity is a CliError.
 */
async function exchangeInstanceIdentity(
  url: string,
  method: Exclude<AuthMethod, 'token'>,
  metadataUrl: string | undefined,
  logger: AgentLogger,
): Promise<string | undefined> {
  const { waitForInstanceToken } = await import('../../agent/index.js');
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    logger.info({ method, ...(metadataUrl ? { metadata_url: metadataUrl } : {}) }, 'exchanging the instance identity for an agent token');
    const token = await waitForInstanceToken({ url, method, metadataUrl, logger, signal: stop.signal });
    if (token !== undefined) logger.info({ method }, 'got an agent token for this instance');
    return token;
  } catch (error) {
    const detail = (error as { detail?: unknown }).detail;
    throw new CliError(
      `The deployment refused the instance identity: ${(error as Error).message}${typeof detail === 'string' && detail ? ` ${detail}` : ''}`,
      {
        hint: "Check that the template sets this instance's id as the agent's instance_id, and that the deployment trusts the cloud's certificates.",
      },
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * Resolves after `stop` finished, which starts at the first SIGINT or SIGTERM (a second one exits
 * at once), or when `until` resolves first; says which.
 */
async function runUntilSignal(
  stop: () => Promise<void>,
  logger: AgentLogger,
  until: Promise<unknown> = new Promise(() => undefined),
): Promise<'signal' | 'until'> {
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
    const which = await Promise.race([done.then(() => 'signal' as const), until.then(() => 'until' as const)]);
    if (which === 'signal') logger.info({}, 'workspace agent stopped');
    return which;
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
