import { pino, type Logger } from 'pino';
import type { Daemon } from '../../src/daemon/index.js';

/**
 * What a test process prints when it is still running close to the file's time limit (15 minutes,
 * scripts/test.mjs), where a whole file takes under a minute: by then something waits for what
 * will never come, and once the runner ends the file nothing is left to say what. For each daemon
 * still open, in-process or `bin/cove serve`, its last log lines and (in-process) its jobs not
 * finished go to stderr, which the runner shows beside the file's failure.
 * COVE_TEST_STALL_REPORT_MS sets another delay (to see the report).
 */
const REPORT_AFTER_MS = Number(process.env['COVE_TEST_STALL_REPORT_MS'] ?? 12 * 60_000);

/** Log lines kept per daemon: enough to cover the last few requests' work. */
const KEPT_LINES = 200;

/** A daemon the report speaks of. */
export interface StallSource {
  /** What the report calls it: its URL, say. */
  readonly name: string;
  /** Its last log lines. */
  lines(): readonly string[];
  /** Its provisioner jobs not finished, when the test can read its database. */
  unfinishedJobs?(): Promise<unknown>;
}

const watched = new Set<StallSource>();
let timer: NodeJS.Timeout | undefined;

/** Reports on `source` if the process stalls, until the returned function is called (when it closes). */
export function watchForStall(source: StallSource): () => void {
  watched.add(source);
  timer ??= setTimeout(() => void report(), Math.max(0, REPORT_AFTER_MS - process.uptime() * 1000));
  // It must not keep a finished test process alive.
  timer.unref();
  return () => watched.delete(source);
}

/** The last KEPT_LINES of `text`, a log. */
export function lastLines(text: string): string[] {
  return text.trimEnd().split('\n').slice(-KEPT_LINES);
}

/**
 * A logger for an in-process test daemon that keeps its last lines, and a function that starts
 * watching `daemon` with them; the returned function stops watching.
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
    watch: (daemon) =>
      watchForStall({
        name: daemon.url,
        lines: () => lines,
        unfinishedJobs: () =>
          daemon.store.db
            .selectFrom('provisioner_jobs')
            .select(['id', 'type', 'created_at', 'started_at', 'updated_at', 'worker_id', 'canceled_at', 'error'])
            .where('completed_at', 'is', null)
            .execute(),
      }),
  };
}

async function report(): Promise<void> {
  const heading = `cove test stall report: this test process has run for ${Math.round(process.uptime())} s`;
  const out = [heading, `active resources: ${process.getActiveResourcesInfo().join(', ')}`];
  for (const source of watched) {
    const lines = source.lines();
    out.push(`daemon ${source.name}, its last ${lines.length} log lines:`, ...lines.map((line) => `  ${line}`));
  }
  // First what needs no database: a stall may be a database that answers nothing.
  console.error(out.join('\n'));
  for (const source of watched) {
    if (!source.unfinishedJobs) continue;
    const timeout = new Promise<string>((resolve) => setTimeout(resolve, 5_000, 'no answer within 5 s').unref());
    const answer = await Promise.race([source.unfinishedJobs(), timeout]).catch((error: unknown) => `failed: ${String(error)}`);
    console.error(`daemon ${source.name}, its jobs not finished: ${JSON.stringify(answer)}`);
  }
}
