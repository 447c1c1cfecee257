import { spawnSync } from 'node:child_process';
import { CliError } from './cli-error.js';

/**
 * The headers `--header` and `--header-command` add to every request, as one map. A proxy in front
 * of the deployment (an identity-aware gateway, a corporate proxy) may require its own headers; the
 * command's output lets them be short-lived. A header is written `Name=value` as the reference's
 * CLI takes it, or `Name: value` as HTTP writes it: whichever separator comes first splits.
 */
export function extraHeaders(
  given: readonly string[],
  headerCommand: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const text of given) {
    const [name, value] = splitHeader(text, '--header');
    headers[name] = value;
  }
  if (headerCommand !== undefined && headerCommand.trim() !== '') {
    for (const line of runHeaderCommand(headerCommand, env)) {
      const [name, value] = splitHeader(line, '--header-command');
      headers[name] = value;
    }
  }
  return headers;
}

function splitHeader(text: string, source: string): [string, string] {
  const at = [text.indexOf('='), text.indexOf(':')].filter((index) => index > 0).sort((a, b) => a - b)[0];
  const name = at === undefined ? '' : text.slice(0, at).trim();
  if (at === undefined || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new CliError(`${source}: "${text}" is not a header.`, { hint: 'Write each header as Name=value or "Name: value".' });
  return [name, text.slice(at + 1).trim()];
}

/** Runs the header command in the shell and returns its non-empty output lines; its failure ends the command. */
function runHeaderCommand(command: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const [file, args]: [string, string[]] = process.platform === 'win32' ? ['cmd.exe', ['/c', command]] : ['/bin/sh', ['-c', command]];
  const result = spawnSync(file, args, {
    env: { ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
  const why = result.error
    ? result.error.message
    : result.signal
      ? `it was killed by ${result.signal}`
      : result.status !== 0
        ? `it exited with status ${result.status}`
        : undefined;
  if (why !== undefined) {
    const stderr = result.stderr?.trim();
    throw new CliError(`The header command failed: ${why}.`, {
      ...(stderr ? { detail: stderr } : {}),
      hint: `Check --header-command (or COVE_HEADER_COMMAND): "${command}".`,
    });
  }
  return result.stdout
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
