import type { Logger } from 'pino';

/**
 * The longest a graceful shutdown may take, from the signal to the process's end. Service
 * managers give a stopping process about this long (or a little more) before they kill it, and
 * a replica being replaced should hand its clients over promptly.
 */
export const SHUTDOWN_LIMIT_MS = 9500;

/**
 * How the daemon's own close spends that time, step by step: the work beside the API (built-in
 * provisioner daemons, timers, the metrics listener), then the API's connections (their grace,
 * IN_FLIGHT_GRACE_MS, and a little more to close), then the database.
 */
export const SHUTDOWN_STEPS_MS = { beside: 2500, api: 4000, database: 2500 } as const;

/**
 * Waits for `step` at most `ms`. A step still running then is left behind, and logged, so the
 * steps after it still run: a provisioner that ignores its cancellation or a query the database
 * never answers must not keep the daemon from stopping. A step that fails is logged the same way.
 */
export async function within(step: Promise<unknown>, ms: number, what: string, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    const outcome = await Promise.race([step.then(() => 'done' as const), late]);
    if (outcome === 'late') logger.warn({ step: what, ms }, 'a shutdown step took too long: going on without it');
  } catch (error) {
    logger.error({ err: error, step: what }, 'a shutdown step failed');
  } finally {
    clearTimeout(timer);
  }
}
