import { Session } from 'node:inspector';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** What the reclaimer reads and does; the process's own unless a test gives others. */
export interface ReclaimerProbes {
  /** Bytes of live and not yet collected objects on the JavaScript heap. */
  heapUsed(): number;
  /** Microseconds of CPU the process has used so far. */
  cpuMicros(): number;
  /** A full garbage collection that gives memory back, or undefined when the runtime offers none. */
  readonly collect: (() => Promise<void>) | undefined;
}

/**
 * When to collect: the heap grew this much since the last collection, or the daemon did this much
 * work since then, and it was this quiet since the last check.
 */
export interface ReclaimerPolicy {
  readonly growthBytes: number;
  /**
   * CPU used since the last collection that counts as a burst of work. Its garbage may not show as
   * growth: V8 may have collected young objects during the burst, after which what it promoted and
   * left behind stays resident until the next full collection.
   */
  readonly workCpuMicros: number;
  /** The share of one core the daemon may have used since the last check and still count as idle. */
  readonly idleCpuShare: number;
}

/**
 * A second of work allocates far more than the heap holds; collecting after it costs tens of
 * milliseconds, a few percent of the work it follows, and only while nothing waits on the daemon.
 */
export const DEFAULT_RECLAIMER_POLICY: ReclaimerPolicy = { growthBytes: 16 * 1024 * 1024, workCpuMicros: 1_000_000, idleCpuShare: 0.05 };

/**
 * Gives memory back once the daemon goes quiet after a burst of work, such as a thousand watch
 * streams opened and closed. V8 collects its old generation only when allocation presses it to,
 * so a daemon that falls idle keeps the garbage of the burst, and its resident size, for as long
 * as it stays idle. Checked on a timer: when the heap has grown past the policy since the last
 * collection, or the daemon did a burst of work since then, and it used almost no CPU since the last
 * check, one full collection runs (tens of milliseconds for a heap of this size, when nothing waits
 * on the daemon anyway).
 */
export class IdleMemoryReclaimer {
  readonly #probes: ReclaimerProbes;
  readonly #policy: ReclaimerPolicy;
  #baseline: number;
  #lastCpu: number;
  #lastCheckMs: number;
  /** CPU used since the last collection (or since the start). */
  #workMicros = 0;

  constructor(nowMs: number, probes: ReclaimerProbes = processProbes(), policy: ReclaimerPolicy = DEFAULT_RECLAIMER_POLICY) {
    this.#probes = probes;
    this.#policy = policy;
    this.#baseline = probes.heapUsed();
    this.#lastCpu = probes.cpuMicros();
    this.#lastCheckMs = nowMs;
  }

  /** Collects if due; says whether it did. */
  async check(nowMs: number): Promise<boolean> {
    const cpu = this.#probes.cpuMicros();
    const elapsedMicros = Math.max(1, (nowMs - this.#lastCheckMs) * 1000);
    const idle = (cpu - this.#lastCpu) / elapsedMicros <= this.#policy.idleCpuShare;
    this.#workMicros += cpu - this.#lastCpu;
    this.#lastCpu = cpu;
    this.#lastCheckMs = nowMs;
    const used = this.#probes.heapUsed();
    // A heap that shrank on its own (V8 did collect) is the new baseline.
    if (used < this.#baseline) this.#baseline = used;
    const due = used - this.#baseline >= this.#policy.growthBytes || this.#workMicros >= this.#policy.workCpuMicros;
    if (!idle || !due || !this.#probes.collect) return false;
    await this.#probes.collect();
    this.#baseline = this.#probes.heapUsed();
    this.#workMicros = 0;
    // The collection's own CPU is not the daemon being busy.
    this.#lastCpu = this.#probes.cpuMicros();
    return true;
  }
}

/** This process: the heap from V8, CPU from the process, and V8's collection for low memory. */
export function processProbes(): ReclaimerProbes {
  return {
    heapUsed: () => getHeapStatistics().used_heap_size,
    cpuMicros: () => {
      const { user, system } = process.cpuUsage();
      return user + system;
    },
    collect: process.features.inspector ? lowMemoryCollection : fullCollection(),
  };
}

/**
 * V8's collection for low memory, through an inspector session inside this process (nothing
 * listens outside it). Unlike a plain full collection it also shrinks the young generation and
 * gives emptied pages back to the system: after a burst, a plain one left the resident size at
 * about twice what this one does.
 */
async function lowMemoryCollection(): Promise<void> {
  const session = new Session();
  session.connect();
  try {
    await new Promise<void>((resolve, reject) =>
      session.post('HeapProfiler.collectGarbage', (error) => (error ? reject(error) : resolve())),
    );
  } finally {
    session.disconnect();
  }
}

/**
 * V8's `gc()`, which it gives only to contexts made after the flag is set: this sets the flag and
 * takes the function from a new context, without exposing it to the daemon's own code.
 */
function fullCollection(): (() => Promise<void>) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? async () => void gc() : undefined;
  } catch {
    return undefined;
  }
}
