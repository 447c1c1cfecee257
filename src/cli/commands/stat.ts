import { homedir } from 'node:os';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import {
  BYTE_PREFIXES,
  containerCpu,
  containerMemory,
  diskUsage,
  formatUsage,
  hostCpu,
  hostMemory,
  isContainerized,
  SYSTEM_SOURCES,
  type BytePrefix,
  type Usage,
} from '../host-stats.js';
import { printJson, printTable } from '../output.js';

const prefixOption = (what: string) => ({ flags: '--prefix <prefix>', description: `Unit of ${what}: Ki, Mi, Gi or Ti`, default: 'Gi' });

function bytePrefix(given: unknown): BytePrefix {
  const prefix = Object.keys(BYTE_PREFIXES).find((p) => p === given);
  if (!prefix) throw new CliError(`"${String(given)}" is not a unit prefix.`, { hint: 'Use Ki, Mi, Gi or Ti.' });
  return prefix as BytePrefix;
}

/** Prints one measurement: as `used/total unit (percent)`, or as JSON. */
function printUsage(context: CommandContext, usage: Usage): number {
  if (context.json) printJson(context.io, usage);
  else context.io.stdout.write(`${formatUsage(usage)}\n`);
  return 0;
}

function homeDir(context: CommandContext): string {
  return context.io.env['HOME'] || homedir();
}

const cpuCommand: CommandSpec = {
  name: 'cpu',
  summary: 'Show CPU use, in cores',
  description: "Cores in use over a short sample: the container's, of its quota, when running in one; else the host's.",
  options: [{ flags: '--host', description: "Measure the host's CPU even inside a container", default: false }],
  examples: ['cove stat cpu', 'cove stat cpu --host -o json'],
  async run(context, _args, options) {
    const inContainer = options['host'] !== true && (await isContainerized(SYSTEM_SOURCES));
    const usage = (inContainer ? await containerCpu(SYSTEM_SOURCES) : undefined) ?? (await hostCpu(SYSTEM_SOURCES));
    return printUsage(context, usage);
  },
};

const memCommand: CommandSpec = {
  name: 'mem',
  summary: 'Show memory use, in GiB',
  description: "Memory in use: the container's, of its limit, when running in one; else the host's.",
  options: [{ flags: '--host', description: "Measure the host's memory even inside a container", default: false }, prefixOption('memory')],
  examples: ['cove stat mem', 'cove stat mem --prefix Mi', 'cove stat mem --host -o json'],
  async run(context, _args, options) {
    const prefix = bytePrefix(options['prefix']);
    const inContainer = options['host'] !== true && (await isContainerized(SYSTEM_SOURCES));
    const usage = (inContainer ? await containerMemory(SYSTEM_SOURCES, prefix) : undefined) ?? (await hostMemory(SYSTEM_SOURCES, prefix));
    return printUsage(context, usage);
  },
};

const diskCommand: CommandSpec = {
  name: 'disk',
  summary: 'Show disk use, in GiB',
  description: 'Space used on the file system that holds --path, of its size.',
  options: [{ flags: '--path <path>', description: 'A path on the file system to measure', default: '/' }, prefixOption('disk space')],
  examples: ['cove stat disk', 'cove stat disk --path ~ --prefix Mi -o json'],
  async run(context, _args, options) {
    const path = typeof options['path'] === 'string' ? options['path'] : '/';
    const usage = await diskUsage(path, bytePrefix(options['prefix'])).catch((error: NodeJS.ErrnoException) => {
      throw new CliError(`Cannot measure ${path}: ${error.code ?? error.message}.`);
    });
    return printUsage(context, usage);
  },
};

/** The columns of `cove stat`, as the reference names them. */
interface StatRow {
  readonly host_cpu: Usage;
  readonly host_memory: Usage;
  readonly home_disk: Usage;
  readonly container_cpu: Usage | null;
  readonly container_memory: Usage | null;
}

const shown = (usage: Usage | null): string => (usage ? formatUsage(usage) : '-');

/** `cove stat`: inside a workspace, the host's CPU, memory and home disk, and the container's CPU and memory. */
export const statCommand: CommandSpec = {
  name: 'stat',
  summary: 'Show CPU, memory and disk use inside a workspace',
  description:
    "Run inside a workspace (in a template's metadata scripts, say): the host's CPU and memory, " +
    "the disk that holds the home directory, and, in a container, the container's CPU and memory " +
    'against its limits. CPU is sampled for a tenth of a second.',
  subcommands: [cpuCommand, memCommand, diskCommand],
  examples: ['cove stat', 'cove stat -o json', 'cove stat cpu', 'cove stat mem --prefix Mi', 'cove stat disk --path /workspace'],
  async run(context, _args, _options) {
    const inContainer = await isContainerized(SYSTEM_SOURCES);
    // The two CPU samples run side by side, so the command waits one sample, not two.
    const [host_cpu, container_cpu] = await Promise.all([
      hostCpu(SYSTEM_SOURCES),
      inContainer ? containerCpu(SYSTEM_SOURCES) : Promise.resolve(undefined),
    ]);
    const row: StatRow = {
      host_cpu,
      host_memory: await hostMemory(SYSTEM_SOURCES, 'Gi'),
      home_disk: await diskUsage(homeDir(context), 'Gi'),
      container_cpu: container_cpu ?? null,
      container_memory: (inContainer ? await containerMemory(SYSTEM_SOURCES, 'Gi') : undefined) ?? null,
    };
    if (context.json) {
      printJson(context.io, [row]);
      return 0;
    }
    printTable(
      context.io,
      [row],
      [
        { heading: 'host cpu', value: (r) => shown(r.host_cpu) },
        { heading: 'host memory', value: (r) => shown(r.host_memory) },
        { heading: 'home disk', value: (r) => shown(r.home_disk) },
        { heading: 'container cpu', value: (r) => shown(r.container_cpu) },
        { heading: 'container memory', value: (r) => shown(r.container_memory) },
      ],
    );
    return 0;
  },
};
