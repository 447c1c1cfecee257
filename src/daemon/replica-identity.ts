import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isUuid, newId } from '../lib/random.js';

/** Which `serve` process this is among the replicas of a deployment, the same across its restarts. */
export interface ReplicaIdentity {
  /** A UUID kept in the data directory. */
  readonly id: string;
  /** For people: the host name and the start of the id, e.g. `build-box-1f3a9c02`. */
  readonly name: string;
}

/** The file in the data directory that keeps the replica's id. */
export const REPLICA_ID_FILE = 'replica_id';

/**
 * Reads the replica's id from the data directory, creating it on first start. Replicas sharing a
 * PostgreSQL database each have their own data directory, so each has its own id; a restarted
 * replica keeps its id and so recognises what its previous run left behind.
 */
export function loadReplicaIdentity(dataDir: string): ReplicaIdentity {
  const path = join(dataDir, REPLICA_ID_FILE);
  let id = readId(path);
  if (id === undefined) {
    try {
      writeFileSync(path, `${newId()}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another start won the race to create it (or an unreadable file is in the way: rewrite it).
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (readId(path) === undefined) writeFileSync(path, `${newId()}\n`, { mode: 0o600 });
    }
    id = readId(path);
    if (id === undefined) throw new Error(`could not keep the replica id in ${path}`);
  }
  return { id, name: `${hostname()}-${id.slice(0, 8)}` };
}

function readId(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim().toLowerCase();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return isUuid(text) ? text : undefined;
}
