import { pino, type Logger } from 'pino';
import type { Daemon } from '../../src/daemon/index.js';

/**
 * What a test process prints when it is still running close to the file's time limit (15 minutes,
 * scripts/test.mjs), where a whole file takes under a minute: by then something waits for what
 * will never come, and once the runner ends the file nothing is left to say what. For each daemon
 * still open, its jobs not finished and its last log lines go to stderr, which the runner shows
 * beside the file's failure. COVE_TEST_STALL_REPORT_MS sets another delay (to see the report).
 */
const REPORT_AFTER_MS = Number(process.env['COVE_TEST_STALL_REPORT_MS'] ?? 12 * 60_000);

/** Log lines kept per daemon: enough to cover the last few requests' work. */
const KEPT_LINES = 200;

interface WatchedDaemon {
  readonly daemon: Daemon;
  readonly lines: string[];
}

const watched = new Set<WatchedDaemon>();
let timer: NodeJS.Timeout | undefined;

/**
 * A logger for a test daemon that keeps its last lines for the stall report, and a function that
 * starts watching `daemon` with it; the returned function stops watching (when the daemon closes).
 */
export function stallReportLogger(): { readonly logger: Logger; readonly watch: (daemon: Daemon) => () => void } {
  const lines: string[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        lines.push(line.trimEnd());
        if (lines.length > KEPT_LINES) lines.splice(0, lines.length - KEPT_LINES);
      },
    },
  );
  return {
    logger,
    watch: (daemon) => {
      const entry = { daemon, lines };
      watched.add(entry);
      timer ??= setTimeout(() => void report(), Math.max(0, REPORT_AFTER_MS - process.uptime() * 1000));
      // It must not keep a finished test process alive.
      timer.unref();
      return () => watched.delete(entry);
    },
  };
}

async function report(): Promise<void> {
  const heading = `cove test stall report: this test process has run for ${Math.round(process.uptime())} s`;
  const out = [heading, `active resources: ${process.getActiveResourcesInfo().join(', ')}`];
  for (const { daemon, lines } of watched)
    out.push(`daemon ${daemon.url}, its last ${lines.length} log lines:`, ...lines.map((line) => `  ${line}`));
  // First what needs no database: a stall may be a database that answers nothing.
  console.error(out.join('\n'));
  for (const { daemon } of watched) {
    const jobs = daemon.store.db
      .selectFrom('provisioner_jobs')
      .select(['id', 'type', 'created_at', 'started_at', 'updated_at', 'worker_id', 'canceled_at', 'error'])
      .where('completed_at', 'is', null)
      .execute();
    const timeout = new Promise<string>((resolve) => setTimeout(resolve, 5_000, 'no answer within 5 s').unref());
    const answer = await Promise.race([jobs, timeout]).catch((error: unknown) => `failed: ${String(error)}`);
    console.error(`daemon ${daemon.url}, its jobs not finished: ${JSON.stringify(answer)}`);
  }
}
