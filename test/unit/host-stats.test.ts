import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { containerCpu, containerMemory, formatUsage, hostCpu, hostMemory, parseMeminfo, parseProcStat } from '../../src/cli/host-stats.js';

const GiB = 2 ** 30;
const roots: string[] = [];

/** A fake /proc and /sys/fs/cgroup with the files given. */
function tree(files: Readonly<Record<string, string>>) {
  const root = mkdtempSync(join(tmpdir(), 'cove-stat-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return { proc: join(root, 'proc'), cgroup: join(root, 'cgroup'), sampleMs: 1, cores: 4 };
}

describe('workspace resource measurements', () => {
  after(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

  it('reads busy and total CPU time from /proc/stat, counting iowait as idle', () => {
    const parsed = parseProcStat('cpu  100 5 50 800 40 3 2 0 7 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n');
    assert.deepEqual(parsed, { busy: 160, total: 1000 });
  });

  it('reads /proc/meminfo in bytes', () => {
    const info = parseMeminfo(
      'MemTotal:       16384000 kB\nMemFree:         1000 kB\nMemAvailable:    8192000 kB\nHugePages_Total:       0\n',
    );
    assert.equal(info.get('MemTotal'), 16384000 * 1024);
    assert.equal(info.get('MemAvailable'), 8192000 * 1024);
    assert.equal(info.get('HugePages_Total'), 0);
  });

  it('prints used of total with the share, or used alone without a limit', () => {
    assert.equal(formatUsage({ used: 1.234, total: 8, unit: 'cores' }), '1.2/8 cores (15%)');
    assert.equal(formatUsage({ used: 3.5, total: 15.5, unit: 'GiB' }), '3.5/15.5 GiB (23%)');
    assert.equal(formatUsage({ used: 3.5, total: null, unit: 'GiB' }), '3.5 GiB');
  });

  it('measures host memory as total less available, in the prefix asked for', async () => {
    const sources = tree({ 'proc/meminfo': `MemTotal: ${16 * 1024 * 1024} kB\nMemAvailable: ${12 * 1024 * 1024} kB\n` });
    assert.deepEqual(await hostMemory(sources, 'Gi'), { used: 4, total: 16, unit: 'GiB' });
    assert.deepEqual(await hostMemory(sources, 'Mi'), { used: 4096, total: 16384, unit: 'MiB' });
  });

  it('measures host CPU over a sample, as cores of all the cores', async () => {
    const sources = tree({ 'proc/stat': 'cpu  0 0 0 100 0 0 0 0 0 0\n' });
    // The same reading twice: no time passed, nothing used.
    assert.deepEqual(await hostCpu(sources), { used: 0, total: 4, unit: 'cores' });
  });

  it('measures container memory less inactive file cache, against the cgroup v2 limit or else the host memory', async () => {
    const limited = tree({
      'cgroup/memory.current': String(3 * GiB),
      'cgroup/memory.stat': `anon 100\ninactive_file ${GiB}\nactive_file 5\n`,
      'cgroup/memory.max': String(4 * GiB),
      'proc/meminfo': `MemTotal: ${16 * 1024 * 1024} kB\n`,
    });
    assert.deepEqual(await containerMemory(limited, 'Gi'), { used: 2, total: 4, unit: 'GiB' });
    const unlimited = tree({
      'cgroup/memory.current': String(GiB),
      'cgroup/memory.max': 'max',
      'proc/meminfo': `MemTotal: ${16 * 1024 * 1024} kB\n`,
    });
    assert.deepEqual(await containerMemory(unlimited, 'Gi'), { used: 1, total: 16, unit: 'GiB' });
    assert.equal(await containerMemory(tree({}), 'Gi'), undefined, 'no control group: no container measurement');
  });

  it('takes the container CPU limit from cpu.max, or every core without a quota', async () => {
    const quota = tree({ 'cgroup/cpu.stat': 'usage_usec 5000\nuser_usec 1\n', 'cgroup/cpu.max': '150000 100000' });
    assert.deepEqual(await containerCpu(quota), { used: 0, total: 1.5, unit: 'cores' });
    const none = tree({ 'cgroup/cpu.stat': 'usage_usec 5000\n', 'cgroup/cpu.max': 'max 100000' });
    assert.equal((await containerCpu(none))?.total, 4);
    assert.equal(await containerCpu(tree({})), undefined);
  });
});
