import { CommanderError } from 'commander';
import { ApiError } from '../sdk/api-error.js';
import { DeploymentTimeoutError, DeploymentUnreachableError } from '../sdk/http-transport.js';
import { CliError } from './cli-error.js';
import { ExitStatusError } from './exit-status.js';
import { COMMANDS } from './command-table.js';
import { isGitAskpassCall } from './git-askpass-prompt.js';
import { processIo, type CliIo } from './io.js';
import { timedOut } from './request-timeout.js';
import { tlsFailure } from './tls-failure.js';
import { validationSentence } from './validation-text.js';
import { newProgram, registerCommand } from './program.js';

/** Global options that take a value, so the requested command can be found before commander runs. */
const VALUE_OPTIONS = new Set([
  '--url',
  '--token',
  '-o',
  '--output',
  '--request-timeout',
  '--header',
  '--header-command',
  '--global-config',
  '--client-tls-ca-file',
  '--client-tls-cert-file',
  '--client-tls-key-file',
]);

/**
 * Runs the CLI on `argv` (as process.argv: node, script, then arguments) and returns the exit code.
 * Never calls process.exit, so tests can run it in-process.
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  // git runs GIT_ASKPASS with the prompt as the only argument; the agent points it at cove itself.
  if (isGitAskpassCall(argv.slice(2), io.env)) return (await import('./git-askpass.js')).runGitAskpass(argv[2] ?? '', io);
  const program = newProgram(io);

  const requested = requestedCommand(argv.slice(2));
  let exitCode = 0;
  const setExit = (code: number | void) => {
    exitCode = typeof code === 'number' ? code : 0;
  };
  for (const entry of COMMANDS) {
    const wanted = requested !== undefined && (entry.name === requested || entry.aliases?.includes(requested));
    if (wanted) {
      const spec = await entry.load();
      await registerCommand(program, spec, io, setExit);
    } else {
      const stub = program.command(entry.name).summary(entry.summary).description(entry.summary);
      for (const alias of entry.aliases ?? []) stub.alias(alias);
    }
  }

  try {
    await program.parseAsync([...argv]);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    return reportError(error, io, program.opts<{ output?: string; verbose?: boolean }>());
  }
}

/** The command the arguments ask for (its name or alias), skipping global options and their values. */
export function requestedCommand(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (VALUE_OPTIONS.has(arg)) i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/** The one place errors become output: one clear line for people, a JSON object under `-o json`. */
function reportError(error: unknown, io: CliIo, options: { output?: string; verbose?: boolean }): number {
  if (error instanceof ExitStatusError) {
    reportError(error.cause, io, options);
    return error.exitCode;
  }
  const report = describeError(error);
  if (options.output === 'json') {
    io.stderr.write(`${JSON.stringify({ error: report }, null, 2)}\n`);
  } else {
    io.stderr.write(`error: ${report.message}\n`);
    if (report.detail) io.stderr.write(`  ${validationSentence(report.detail)}\n`);
    // The API often repeats its detail as the one field's validation; say it once.
    for (const v of report.validations ?? [])
      if (v.detail !== report.detail) io.stderr.write(`  ${v.field}: ${validationSentence(v.detail)}\n`);
    if (report.hint) io.stderr.write(`hint: ${report.hint}\n`);
  }
  if (options.verbose && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  return error instanceof CliError ? error.exitCode : 1;
}

interface ErrorReport {
  readonly message: string;
  readonly detail?: string;
  readonly hint?: string;
  readonly status?: number;
  readonly validations?: readonly { field: string; detail: string }[];
}

function describeError(error: unknown): ErrorReport {
  if (error instanceof ApiError) {
    return {
      message: error.message,
      status: error.status,
      ...(error.detail ? { detail: error.detail } : {}),
      ...(error.hint ? { hint: error.hint } : {}),
      ...(error.body.validations ? { validations: error.body.validations } : {}),
    };
  }
  if (error instanceof CliError) {
    return { message: error.message, ...(error.detail ? { detail: error.detail } : {}), ...(error.hint ? { hint: error.hint } : {}) };
  }
  if (error instanceof DeploymentTimeoutError) {
    return timedOut(error);
  }
  if (error instanceof DeploymentUnreachableError) {
    const tls = tlsFailure(error.cause);
    if (tls) return tls;
    return {
      message: `Could not reach the deployment${error.code ? ` (${error.code})` : ''}.`,
      hint: 'Check the URL, and that "cove serve" is running there.',
    };
  }
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  if (error instanceof TypeError && error.message === 'fetch failed') {
    return {
      message: `Could not reach the deployment${cause?.code ? ` (${cause.code})` : ''}.`,
      hint: 'Check the URL, and that "cove serve" is running there.',
    };
  }
  return { message: error instanceof Error ? error.message : String(error), hint: 'Run again with --verbose for details.' };
}
