import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock, type Clock } from '../lib/clock.js';
import type { ListeningPort } from '../sdk/wire/relay-protocol.js';

/** Ports below this are never reported (the reference's `AgentMinimumListeningPort`). */
export const MINIMUM_LISTENING_PORT = 9;

/** The agent's own ports in the reference (pprof, prometheus, debug server): not the user's. */
export const DEFAULT_EXCLUDED_PORTS: readonly number[] = [6060, 2112, 2113];

export interface ListeningPortsReaderOptions {
  /** Where procfs is mounted (`/proc`). Given explicitly, it is read on any platform. */
  readonly procRoot?: string;
  /** Ports never reported (default: {@link DEFAULT_EXCLUDED_PORTS}). */
  readonly excludePorts?: readonly number[];
  /** How long one answer is reused (1000 ms). */
  readonly cacheMs?: number;
  /** The source of "now" for the cache (system clock). */
  readonly clock?: Clock;
}

export interface ListeningPortsReader {
  /** The TCP ports something listens on in this workspace, sorted by port. */
  read(): Promise<ListeningPort[]>;
}

/** The `st` column value of a socket in LISTEN state in `/proc/net/tcp{,6}`. */
const TCP_LISTEN = '0A';

/** How many processes are scanned at once when looking up socket owners. */
const SCAN_CONCURRENCY = 32;

/**
 * Reads the listening TCP ports from procfs (Linux only; elsewhere the list is empty): sockets in
 * LISTEN state from `net/tcp` and `net/tcp6`, each named after the process holding its inode
 * (`''` when that process cannot be seen). Answers are cached, and concurrent reads share one scan.
 */
export function createListeningPortsReader(options: ListeningPortsReaderOptions = {}): ListeningPortsReader {
  const procRoot = options.procRoot ?? (process.platform === 'linux' ? '/proc' : undefined);
  const excluded = new Set(options.excludePorts ?? DEFAULT_EXCLUDED_PORTS);
  const cacheMs = options.cacheMs ?? 1000;
  const clock = options.clock ?? systemClock;
  let cached: { readonly at: number; readonly ports: ListeningPort[] } | undefined;
  let inflight: Promise<ListeningPort[]> | undefined;

  const scan = async (root: string): Promise<ListeningPort[]> => {
    const sockets = (await Promise.all([readSockets(join(root, 'net/tcp')), readSockets(join(root, 'net/tcp6'))])).flat();
    const wanted = sockets.filter((socket) => socket.port >= MINIMUM_LISTENING_PORT && !excluded.has(socket.port));
    const owners = await socketOwners(root, new Set(wanted.map((socket) => socket.inode).filter((inode) => inode !== '0')));
    const byPort = new Map<number, ListeningPort>();
    for (const socket of wanted) {
      const processName = owners.get(socket.inode) ?? '';
      const seen = byPort.get(socket.port);
      if (seen === undefined || (seen.process_name === '' && processName !== '')) {
        byPort.set(socket.port, { process_name: processName, network: 'tcp', port: socket.port });
      }
    }
    return [...byPort.values()].sort((a, b) => a.port - b.port);
  };

  return {
    async read() {
      if (procRoot === undefined) return [];
      const now = clock.now().getTime();
      if (cached !== undefined && now - cached.at < cacheMs) return cached.ports.map((port) => ({ ...port }));
      inflight ??= scan(procRoot)
        .then((ports) => {
          cached = { at: clock.now().getTime(), ports };
          return ports;
        })
        .finally(() => {
          inflight = undefined;
        });
      const ports = await inflight;
      return ports.map((port) => ({ ...port }));
    },
  };
}

interface ListeningSocket {
  readonly port: number;
  readonly inode: string;
}

/** The LISTEN sockets of one `/proc/net/tcp`-style table; a missing table is empty (no IPv6). */
async function readSockets(path: string): Promise<ListeningSocket[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isGone(error)) return [];
    throw error;
  }
  return parseTcpTable(text);
}

/**
 * Parses a `/proc/net/tcp` or `/proc/net/tcp6` table: the header line, then per socket
 * `sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …`, where the
 * local address is `<hex ip>:<hex port>`.
 */
export function parseTcpTable(text: string): ListeningSocket[] {
  const sockets: ListeningSocket[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10 || fields[3]?.toUpperCase() !== TCP_LISTEN) continue;
    const local = fields[1] ?? '';
    const colon = local.lastIndexOf(':');
    if (colon < 0) continue;
    const port = Number.parseInt(local.slice(colon + 1), 16);
    if (!Number.isInteger(port) || port < 0 || port > 65535) continue;
    sockets.push({ port, inode: fields[9] ?? '0' });
  }
  return sockets;
}

/** Maps socket inodes to the `comm` of a process holding them, scanning `<root>/<pid>/fd`. */
async function socketOwners(root: string, inodes: ReadonlySet<string>): Promise<Map<string, string>> {
  const owners = new Map<string, string>();
  if (inodes.size === 0) return owners;
  let entries: string[];
  try {
    entries = await readdir(root);
  } catch (error) {
    if (isGone(error)) return owners;
    throw error;
  }
  const pids = entries.filter((entry) => /^\d+$/.test(entry));
  for (let start = 0; start < pids.length && owners.size < inodes.size; start += SCAN_CONCURRENCY) {
    await Promise.all(pids.slice(start, start + SCAN_CONCURRENCY).map((pid) => scanProcess(join(root, pid), inodes, owners)));
  }
  return owners;
}

async function scanProcess(dir: string, inodes: ReadonlySet<string>, owners: Map<string, string>): Promise<void> {
  let fds: string[];
  try {
    fds = await readdir(join(dir, 'fd'));
  } catch {
    return; // gone, or another user's process
  }
  const found: string[] = [];
  await Promise.all(
    fds.map(async (fd) => {
      const target = await readlink(join(dir, 'fd', fd)).catch(() => '');
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (match?.[1] !== undefined && inodes.has(match[1]) && !owners.has(match[1])) found.push(match[1]);
    }),
  );
  if (found.length === 0) return;
  const comm = (await readFile(join(dir, 'comm'), 'utf8').catch(() => '')).trim();
  for (const inode of found) if (!owners.has(inode)) owners.set(inode, comm);
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR';
}
