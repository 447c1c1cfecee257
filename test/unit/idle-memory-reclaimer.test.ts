import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { IdleMemoryReclaimer, processProbes, type ReclaimerProbes } from '../../src/daemon/idle-memory-reclaimer.js';

const MIB = 1024 * 1024;

/** A burst of allocation: mostly short-lived objects, some kept for a while, none at the end. */
function churn(): void {
  let kept: unknown[][] = [];
  for (let round = 0; round < 100; round++) {
    const batch = Array.from({ length: 20_000 }, (_, i) => ({ i, text: `item ${round} ${i}`, pair: [i, i + 1] }));
    kept.push(batch.slice(0, 2_000));
    if (kept.length > 20) kept.shift();
  }
  kept = [];
  assert.equal(kept.length, 0);
}

/** Probes a test moves by hand, counting collections; a collection brings the heap back to `floor`. */
function handProbes(): ReclaimerProbes & { heap: number; cpu: number; floor: number; collections: number } {
  const probes = {
    heap: 50 * MIB,
    cpu: 0,
    floor: 50 * MIB,
    collections: 0,
    heapUsed: () => probes.heap,
    cpuMicros: () => probes.cpu,
    collect: async () => {
      probes.collections++;
      probes.heap = probes.floor;
    },
  };
  return probes;
}

describe('the idle memory reclaimer', () => {
  const policy = { growthBytes: 16 * MIB, workCpuMicros: 1_000_000, idleCpuShare: 0.05 };

  it('collects once the heap has grown and the daemon has gone quiet, and not again until it grows again', async () => {
    const probes = handProbes();
    const reclaimer = new IdleMemoryReclaimer(0, probes, policy);
    // A burst: the heap grows while the daemon is busy (half a core over 10 s).
    probes.heap += 40 * MIB;
    probes.cpu += 5_000_000;
    assert.equal(await reclaimer.check(10_000), false, 'busy: no collection');
    // Quiet now: 1% of a core.
    probes.cpu += 100_000;
    assert.equal(await reclaimer.check(20_000), true);
    assert.equal(probes.collections, 1);
    assert.equal(await reclaimer.check(30_000), false, 'nothing grew since');
    probes.heap += 10 * MIB;
    assert.equal(await reclaimer.check(40_000), false, 'grew less than the policy');
    probes.heap += 10 * MIB;
    assert.equal(await reclaimer.check(50_000), true);
    assert.equal(probes.collections, 2);
  });

  it('takes a heap that V8 shrank on its own as the new baseline', async () => {
    const probes = handProbes();
    const reclaimer = new IdleMemoryReclaimer(0, probes, policy);
    probes.heap = 30 * MIB;
    assert.equal(await reclaimer.check(10_000), false);
    probes.heap = 47 * MIB;
    assert.equal(await reclaimer.check(20_000), true, '17 MiB over the lower baseline');
  });

  it('collects once after a burst of work whose garbage V8 already took in part, though the heap did not grow', async () => {
    const probes = handProbes();
    const reclaimer = new IdleMemoryReclaimer(0, probes, policy);
    // A burst during which V8 collected on its own: the heap ends where it began.
    probes.cpu += 3_000_000;
    assert.equal(await reclaimer.check(10_000), false, 'busy: no collection');
    probes.cpu += 100_000;
    assert.equal(await reclaimer.check(20_000), true, 'quiet after three seconds of work');
    assert.equal(probes.collections, 1);
    // Light work since, a little at a time: quiet at every check, and not yet a second of it.
    for (let check = 3; check <= 10; check++) {
      probes.cpu += 100_000;
      assert.equal(await reclaimer.check(check * 10_000), false, `check ${check}: ${check - 2} tenths of a second of work`);
    }
    probes.cpu += 200_000;
    assert.equal(await reclaimer.check(110_000), true, 'a second of work since the last collection');
    assert.equal(probes.collections, 2);
  });

  it('does nothing where the runtime offers no full collection', async () => {
    const probes = { ...handProbes(), collect: undefined };
    const reclaimer = new IdleMemoryReclaimer(0, probes, policy);
    probes.heap += 100 * MIB;
    assert.equal(await reclaimer.check(10_000), false);
  });

  it("collects this process's garbage with V8's own collection, and gives the memory back", async () => {
    const probes = processProbes();
    assert.ok(probes.collect, 'a full collection is available');
    assert.equal(Reflect.get(globalThis, 'gc'), undefined, 'and not exposed to the code itself');
    let garbage: unknown[] | undefined = Array.from({ length: 300_000 }, (_, i) => ({ i, text: `item ${i}` }));
    const filled = getHeapStatistics().used_heap_size;
    assert.equal(garbage.length, 300_000);
    garbage = undefined;
    await probes.collect();
    const collected = getHeapStatistics().used_heap_size;
    assert.ok(filled - collected > 10 * MIB, `the heap went from ${filled} to ${collected} bytes`);
  });

  it('gives back the pages a burst took, which a plain full collection keeps', async () => {
    const probes = processProbes();
    assert.ok(probes.collect);
    setFlagsFromString('--expose-gc');
    const plainCollection = runInNewContext('gc') as () => void;
    churn();
    plainCollection();
    const keptByPlain = getHeapStatistics().total_heap_size;
    churn();
    await probes.collect();
    const kept = getHeapStatistics().total_heap_size;
    assert.ok(kept < keptByPlain / 2, `the heap kept ${kept} bytes, against ${keptByPlain} after a plain full collection`);
  });
});
