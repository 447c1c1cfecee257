import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { singleExecutablePath } from '../lib/single-executable.js';
import { createEchoProvisioner } from '../provisioner/echo/echo-provisioner.js';
import { createNativeProvisioner } from '../provisioner/native/native-provisioner.js';
import type { Provisioner } from '../provisioner/provisioner.js';
import { createTerraformProvisioner } from '../provisioner/terraform/terraform-provisioner.js';
import { startProvisionerDaemon, type ProvisionerDaemonHandle } from '../provisioner/runner/index.js';
import type { ReplicaIdentity } from './replica-identity.js';

/** The provisioner daemons `serve` runs in its own process. */
export interface BuiltinProvisioners {
  readonly daemons: readonly ProvisionerDaemonHandle[];
  stop(): Promise<void>;
}

/**
 * The command that starts `cove agent`: the single executable this daemon runs from, or else the
 * same Node and the same `bin/cove` as this daemon, found by walking up from this module (it runs
 * from `dist/` when built, `src/` in tests).
 */
export function agentCommand(): string[] {
  const single = singleExecutablePath();
  if (single !== undefined) return [single, 'agent'];
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'bin', 'cove');
    if (existsSync(candidate)) return [process.execPath, candidate, 'agent'];
    dir = dirname(dir);
  }
  return [process.execPath, process.argv[1] ?? 'cove', 'agent'];
}

/** The provisioners every daemon of this build can run. */
export function provisionerKinds(): ReadonlyMap<string, Provisioner> {
  return new Map<string, Provisioner>([
    ['native', createNativeProvisioner({ agentCommand: agentCommand() })],
    ['echo', createEchoProvisioner()],
    ['terraform', createTerraformProvisioner()],
  ]);
}

/**
 * Starts `count` provisioner daemons that connect to this daemon at `url` with the in-process
 * key, like external ones do, so both kinds speak the same job protocol.
 */
export function startBuiltinProvisioners(options: {
  readonly url: string;
  readonly count: number;
  readonly key: string;
  readonly dataDir: string;
  readonly replica: ReplicaIdentity;
  readonly logger: Logger;
}): BuiltinProvisioners {
  const provisioners = provisionerKinds();
  const daemons = Array.from({ length: Math.max(0, options.count) }, (_unused, index) => {
    const name = builtinDaemonName(options.replica, index);
    return startProvisionerDaemon({
      url: options.url,
      organization: 'default',
      // Stable per replica and slot, so a restarted server updates its rows instead of adding more,
      // and knows at start which unfinished jobs were its own.
      id: builtinDaemonId(options.replica, index),
      // Says which replica held a job (its `worker_name`).
      name,
      tags: {},
      key: options.key,
      provisioners,
      workDirectory: join(options.dataDir, 'provisioner'),
      logger: options.logger.child({ provisioner: name }),
    });
  });
  return {
    daemons,
    stop: async () => {
      await Promise.all(daemons.map((daemon) => daemon.stop()));
    },
  };
}

/** What every built-in daemon id of a replica begins with: the first 24 characters of its id. */
export function builtinDaemonIdPrefix(replica: ReplicaIdentity): string {
  return replica.id.slice(0, 24);
}

/** The id of a replica's built-in daemon in slot `index`: the replica's prefix and the slot. */
export function builtinDaemonId(replica: ReplicaIdentity, index: number): string {
  return `${builtinDaemonIdPrefix(replica)}${(0xb1 * 0x10000 + index).toString(16).padStart(12, '0')}`;
}

/** The name of a replica's built-in daemon in slot `index`, e.g. `built-in-1@build-box-1f3a9c02`. */
export function builtinDaemonName(replica: ReplicaIdentity, index: number): string {
  return `built-in-${index + 1}@${replica.name}`;
}
