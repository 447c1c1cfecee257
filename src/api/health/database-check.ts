import type { DatabaseReport } from '../../sdk/wire/index.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import { goDuration, verdict } from './health-severity.js';

/** How many round trips are timed; the median is reported, as the reference does. */
const PINGS = 5;

/**
 * Times round trips to the database and reports the median: a failed one is EDB01 (error), a
 * median at or above the threshold EDB02 (warning).
 */
export async function checkDatabase(store: AuthorizedStore, thresholdMs: number): Promise<DatabaseReport> {
  const base = { latency: '', latency_ms: 0, threshold_ms: Math.round(thresholdMs), reachable: false };
  const times: number[] = [];
  try {
    for (let i = 0; i < PINGS; i++) {
      const started = process.hrtime.bigint();
      await store.deployment.pingDatabase();
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } catch {
    // Not the driver's text: it names the database's address and user, and the report goes to every operator.
    return { ...base, ...verdict({ error: { code: 'EDB01', message: 'The database did not answer: it is unavailable.' } }) };
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? 0;
  const found = { ...base, latency: goDuration(median), latency_ms: Math.floor(median), reachable: true };
  if (median >= thresholdMs) {
    return {
      ...found,
      ...verdict({
        warnings: [
          { code: 'EDB02', message: `Median database round trip ${goDuration(median)} is at or above the threshold of ${thresholdMs}ms.` },
        ],
      }),
    };
  }
  return { ...found, ...verdict({}) };
}
