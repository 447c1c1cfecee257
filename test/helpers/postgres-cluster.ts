import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** Where Debian installs PostgreSQL's server binaries, one directory per major version. */
const DEBIAN_POSTGRES = '/usr/lib/postgresql';

/** The operating-system user the cluster runs as: PostgreSQL refuses to run as root. */
const CLUSTER_USER = 'postgres';

/**
 * A PostgreSQL cluster of a test's own, in a temporary directory on a free port, that the test may
 * stop and start as it likes (the shared CI server must never go down under the other tests).
 */
export interface PostgresCluster {
  /** Connects as the cluster's superuser, whose name is given at creation, to its `postgres` database. */
  readonly url: string;
  readonly port: number;
  /** Whether the server was started and not stopped since. */
  readonly running: boolean;
  /** Starts the server and waits until it accepts connections. */
  start(): void;
  /** Stops it the way a crash or a power cut would: no shutdown checkpoint, clients cut off. */
  stopImmediately(): void;
  /** Stops it if it runs, and removes its files. Safe to call more than once. */
  destroy(): void;
}

/** The newest Debian PostgreSQL's binary directory that has initdb, if the host has one. */
export function postgresBinaries(): string | undefined {
  if (!existsSync(DEBIAN_POSTGRES)) return undefined;
  const versions = readdirSync(DEBIAN_POSTGRES)
    .filter((version) => existsSync(join(DEBIAN_POSTGRES, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  const newest = versions[0];
  if (newest === undefined) return undefined;
  // The cluster must run as its own user; as root the test switches to it, otherwise it cannot.
  if (process.getuid?.() !== 0 || spawnSync('id', ['-u', CLUSTER_USER]).status !== 0) return undefined;
  return join(DEBIAN_POSTGRES, newest, 'bin');
}

/** Creates (initdb) a cluster whose superuser is `superuser`, with trust authentication, and starts it. */
export async function createPostgresCluster(binaries: string, superuser: string): Promise<PostgresCluster> {
  const directory = mkdtempSync(join(tmpdir(), 'cove-pg-'));
  const uid = Number(spawnSync('id', ['-u', CLUSTER_USER], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', CLUSTER_USER], { encoding: 'utf8' }).stdout.trim());
  chownSync(directory, uid, gid);
  const data = join(directory, 'data');
  const port = await freePort();
  const asClusterUser = (tool: string, args: readonly string[]): void => {
    const result = spawnSync('runuser', ['-u', CLUSTER_USER, '--', join(binaries, tool), ...args], { encoding: 'utf8', timeout: 60_000 });
    if (result.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${result.status}):\n${result.stdout}${result.stderr}`);
  };
  let running = false;
  const cluster: PostgresCluster = {
    url: `postgres://${superuser}@127.0.0.1:${port}/postgres`,
    port,
    get running() {
      return running;
    },
    start() {
      // The socket directory is the cluster's own, so no system-wide directory or permission is needed.
      const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
      asClusterUser('pg_ctl', ['-D', data, '-l', join(directory, 'server.log'), '-o', options, '-w', '-t', '30', 'start']);
      running = true;
    },
    stopImmediately() {
      asClusterUser('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      running = false;
    },
    destroy() {
      if (running) {
        try {
          cluster.stopImmediately();
        } catch {
          // Removing its files below leaves nothing behind that a later run could trip on.
        }
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
  try {
    asClusterUser('initdb', ['-D', data, '-U', superuser, '-A', 'trust', '--no-sync', '-E', 'UTF8']);
    cluster.start();
  } catch (error) {
    cluster.destroy();
    throw error;
  }
  return cluster;
}
