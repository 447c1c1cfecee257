import { existsSync } from 'node:fs';
import { readFile, statfs } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** One measurement: how much is used of how much (null: no limit), in `unit`. */
export interface Usage {
  readonly used: number;
  readonly total: number | null;
  readonly unit: string;
}

/** Binary prefixes for byte counts, as `--prefix` takes them. */
export const BYTE_PREFIXES = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 } as const;
export type BytePrefix = keyof typeof BYTE_PREFIXES;

/** Where the measurements are read from; tests point them at a fake tree. */
export interface StatSources {
  readonly proc: string;
  readonly cgroup: string;
  /** How long CPU time is sampled for. */
  readonly sampleMs: number;
  readonly cores: number;
}

export const SYSTEM_SOURCES: StatSources = { proc: '/proc', cgroup: '/sys/fs/cgroup', sampleMs: 100, cores: availableParallelism() };

/** `1.2/8 cores (15%)`, `3.4/15.5 GiB (22%)`, or `3.4 GiB` without a limit. */
export function formatUsage(usage: Usage): string {
  const total = usage.total === null ? '' : `/${number(usage.total)}`;
  const percent = usage.total !== null && usage.total > 0 ? ` (${Math.round((usage.used / usage.total) * 100)}%)` : '';
  return `${usage.used.toFixed(1)}${total} ${usage.unit}${percent}`;
}

function number(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

function inPrefix(bytes: number, prefix: BytePrefix): number {
  return round(bytes / BYTE_PREFIXES[prefix]);
}

/** Three decimals are plenty for people and keep JSON free of float noise. */
function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

// Host

/** Busy and total CPU time from the first line of /proc/stat, in clock ticks. */
export function parseProcStat(text: string): { readonly busy: number; readonly total: number } {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) throw new Error('/proc/stat has no "cpu" line');
  // user nice system idle iowait irq softirq steal; guest time is already counted in user and nice.
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = ticks.reduce((sum, t) => sum + t, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busy: total - idle, total };
}

/** Cores in use on the host over a short sample, of all its cores. */
export async function hostCpu(sources: StatSources): Promise<Usage> {
  const read = async () => parseProcStat(await readFile(join(sources.proc, 'stat'), 'utf8'));
  const first = await read();
  await delay(sources.sampleMs);
  const second = await read();
  const elapsed = second.total - first.total;
  const used = elapsed > 0 ? ((second.busy - first.busy) / elapsed) * sources.cores : 0;
  return { used: round(used), total: sources.cores, unit: 'cores' };
}

/** Fields of /proc/meminfo, in bytes. */
export function parseMeminfo(text: string): Map<string, number> {
  const fields = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(\w+):\s+(\d+)(?:\s+kB)?/.exec(line);
    if (match?.[1] && match[2]) fields.set(match[1], Number(match[2]) * (line.includes('kB') ? 1024 : 1));
  }
  return fields;
}

/** Memory in use on the host: all of it less what is available to start new programs. */
export async function hostMemory(sources: StatSources, prefix: BytePrefix): Promise<Usage> {
  const info = parseMeminfo(await readFile(join(sources.proc, 'meminfo'), 'utf8'));
  const total = info.get('MemTotal') ?? 0;
  const available = info.get('MemAvailable') ?? info.get('MemFree') ?? 0;
  return { used: inPrefix(total - available, prefix), total: inPrefix(total, prefix), unit: `${prefix}B` };
}

/** Space used on the file system that holds `path`, of its size. */
export async function diskUsage(path: string, prefix: BytePrefix): Promise<Usage> {
  const stats = await statfs(path);
  const total = stats.blocks * stats.bsize;
  const free = stats.bfree * stats.bsize;
  return { used: inPrefix(total - free, prefix), total: inPrefix(total, prefix), unit: `${prefix}B` };
}

// Container

/**
 * Whether this process runs in a container: the markers Docker and Podman leave, or a PID 1
 * whose control group a container runtime made.
 */
export async function isContainerized(sources: StatSources): Promise<boolean> {
  if (existsSync('/.dockerenv') || existsSync('/run/.containerenv')) return true;
  const cgroup = await readFile(join(sources.proc, '1', 'cgroup'), 'utf8').catch(() => '');
  return /docker|kubepods|containerd|libpod|lxc/.test(cgroup);
}

async function readText(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').then(
    (text) => text.trim(),
    () => undefined,
  );
}

/** The CPU time the control group has used, in microseconds (cgroup v2, else v1). */
async function cgroupCpuMicros(sources: StatSources): Promise<number | undefined> {
  const stat = await readText(join(sources.cgroup, 'cpu.stat'));
  const usage = stat === undefined ? undefined : /^usage_usec (\d+)/m.exec(stat)?.[1];
  if (usage !== undefined) return Number(usage);
  const v1 = (await readText(join(sources.cgroup, 'cpuacct', 'cpuacct.usage'))) ?? (await readText(join(sources.cgroup, 'cpuacct.usage')));
  return v1 === undefined ? undefined : Number(v1) / 1000;
}

/** The cores the control group may use: its quota over its period, or every core without a quota. */
async function cgroupCpuLimit(sources: StatSources): Promise<number> {
  const max = await readText(join(sources.cgroup, 'cpu.max'));
  if (max !== undefined) {
    const [quota = 'max', period = '100000'] = max.split(/\s+/);
    return quota === 'max' ? sources.cores : Number(quota) / Number(period);
  }
  const quota = Number((await readText(join(sources.cgroup, 'cpu', 'cpu.cfs_quota_us'))) ?? '-1');
  const period = Number((await readText(join(sources.cgroup, 'cpu', 'cpu.cfs_period_us'))) ?? '100000');
  return quota > 0 && period > 0 ? quota / period : sources.cores;
}

/** Cores the container used over a short sample, of those it may use; undefined without a readable control group. */
export async function containerCpu(sources: StatSources): Promise<Usage | undefined> {
  // Each reading is timed as it is taken, so the wall time matches the CPU time it is divided into.
  const started = process.hrtime.bigint();
  const first = await cgroupCpuMicros(sources);
  if (first === undefined) return undefined;
  await delay(sources.sampleMs);
  const ended = process.hrtime.bigint();
  const second = (await cgroupCpuMicros(sources)) ?? first;
  const elapsedMicros = Number(ended - started) / 1000;
  const used = elapsedMicros > 0 ? (second - first) / elapsedMicros : 0;
  return { used: round(used), total: round(await cgroupCpuLimit(sources)), unit: 'cores' };
}

/**
 * Memory the container uses, less the file cache the kernel can drop (inactive_file), of its
 * limit, or of the host's memory when it has none.
 */
export async function containerMemory(sources: StatSources, prefix: BytePrefix): Promise<Usage | undefined> {
  const v2 = await readText(join(sources.cgroup, 'memory.current'));
  const current = v2 ?? (await readText(join(sources.cgroup, 'memory', 'memory.usage_in_bytes')));
  if (current === undefined) return undefined;
  const stat = (await readText(join(sources.cgroup, v2 !== undefined ? 'memory.stat' : join('memory', 'memory.stat')))) ?? '';
  const inactive = Number(/^(?:total_)?inactive_file (\d+)/m.exec(stat)?.[1] ?? 0);
  const limitText =
    v2 !== undefined
      ? await readText(join(sources.cgroup, 'memory.max'))
      : await readText(join(sources.cgroup, 'memory', 'memory.limit_in_bytes'));
  const hostTotal = parseMeminfo((await readText(join(sources.proc, 'meminfo'))) ?? '').get('MemTotal') ?? 0;
  // cgroup v1 spells "no limit" as a huge number near 2^63.
  const limit = limitText === undefined || limitText === 'max' || Number(limitText) >= 2 ** 62 ? hostTotal : Number(limitText);
  const used = Math.max(0, Number(current) - inactive);
  return { used: inPrefix(used, prefix), total: limit > 0 ? inPrefix(limit, prefix) : null, unit: `${prefix}B` };
}
