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
  readonly deploymentId: string;
  readonly logger: Logger;
}): BuiltinProvisioners {
  const provisioners = provisionerKinds();
  const daemons = Array.from({ length: Math.max(0, options.count) }, (_unused, index) =>
    startProvisionerDaemon({
      url: options.url,
      organization: 'default',
      // Stable per deployment and slot, so a restarted server updates its rows instead of adding more.
      id: slotId(options.deploymentId, index),
      name: `built-in-${index + 1}`,
      tags: {},
      key: options.key,
      provisioners,
      workDirectory: join(options.dataDir, 'provisioner'),
      logger: options.logger.child({ provisioner: `built-in-${index + 1}` }),
    }),
  );
  return {
    daemons,
    stop: async () => {
      await Promise.all(daemons.map((daemon) => daemon.stop()));
    },
  };
}

function slotId(deploymentId: string, index: number): string {
  return `${deploymentId.slice(0, 24)}${(0xb1 * 0x10000 + index).toString(16).padStart(12, '0')}`;
}
