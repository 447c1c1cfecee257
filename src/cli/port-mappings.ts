import { CliError } from './cli-error.js';

/** One local port carried to one port inside the workspace. */
export interface PortMapping {
  readonly network: 'tcp' | 'udp';
  readonly bindHost: string;
  readonly localPort: number;
  readonly remotePort: number;
}

/** The most ports one range may name; more is almost surely a typo. */
const MAX_RANGE = 1024;

/**
 * Reads `--tcp`/`--udp` values as the reference writes them: comma-separated lists of
 * `[BIND:]LOCAL[:REMOTE]`, where LOCAL and REMOTE may be ranges of the same size
 * (`8000-8010:9000-9010`); a lone port or range maps to the same ports inside. BIND may be an
 * IPv6 address in brackets.
 */
export function parsePortMappings(network: 'tcp' | 'udp', values: readonly string[]): PortMapping[] {
  return values.flatMap((value) =>
    value
      .split(',')
      .map((text) => text.trim())
      .filter((text) => text !== '')
      .flatMap((text) => parseOne(network, text)),
  );
}

function parseOne(network: 'tcp' | 'udp', text: string): PortMapping[] {
  const refuse = (why: string): never => {
    throw new CliError(`--${network} "${text}" is not a port mapping: ${why}.`, {
      hint: `Write LOCAL:REMOTE, a range such as 8000-8010 or 8000-8010:9000-9010, or BIND:LOCAL:REMOTE, e.g. --${network} 127.0.0.1:8080:80.`,
    });
  };
  let rest = text;
  let bindHost = '127.0.0.1';
  const bracketed = /^\[([^\]]+)\]:(.*)$/.exec(text);
  if (bracketed) {
    bindHost = bracketed[1] ?? '';
    rest = bracketed[2] ?? '';
  } else {
    const parts = text.split(':');
    if (parts.length > 2) {
      bindHost = parts.slice(0, -2).join(':');
      rest = parts.slice(-2).join(':');
    } else if (parts.length === 2 && !/^\d+(-\d+)?$/.test(parts[0] ?? '')) {
      // `host:port` would be ambiguous with LOCAL:REMOTE; the reference reads it as ports, so refuse it clearly.
      return refuse(`"${parts[0] ?? ''}" is not a port`);
    }
  }
  const [localText = '', remoteText = localText, extra] = rest.split(':');
  if (extra !== undefined) return refuse('too many colons');
  const local = parseRange(localText, true) ?? refuse(`"${localText}" is not a port or a range of ports`);
  const remote = parseRange(remoteText, false) ?? refuse(`"${remoteText}" is not a port or a range of ports`);
  const size = local.last - local.first;
  if (remote.last - remote.first !== size) return refuse('the local and remote ranges differ in size');
  if (size >= MAX_RANGE) return refuse(`a range may hold at most ${MAX_RANGE} ports`);
  if (size > 0 && local.first === 0) return refuse('a range of local ports cannot start at 0');
  return Array.from({ length: size + 1 }, (_, i) => ({
    network,
    bindHost,
    localPort: local.first + i,
    remotePort: remote.first + i,
  }));
}

/** `8080` or `8000-8010`; local ports may be 0 (any free port). */
function parseRange(text: string, local: boolean): { first: number; last: number } | undefined {
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text);
  if (!match) return undefined;
  const first = Number(match[1]);
  const last = match[2] === undefined ? first : Number(match[2]);
  if (first < (local ? 0 : 1) || last > 65535 || last < first) return undefined;
  return { first, last };
}
