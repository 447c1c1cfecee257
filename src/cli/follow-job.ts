import { setTimeout as delay } from 'node:timers/promises';
import type { MatchedProvisioners, ProvisionerJob, ProvisionerJobLog } from '../sdk/wire/index.js';
import { BuildLogPrinter } from './build-logs.js';
import type { CommandContext } from './command.js';

/** How often a job is asked for its queue position, and for its end when the log stream broke. */
const POLL_MS = 1000;

const DONE = ['succeeded', 'failed', 'canceled'];

/** Something a provisioner job runs for: an import (a template version) or a workspace build. */
export interface JobHolder {
  readonly job: ProvisionerJob;
  readonly matched_provisioners?: MatchedProvisioners | undefined;
}

/** How to reach what a job runs for, and its logs. */
export interface JobSource<T extends JobHolder> {
  /** `import` or `build`, for messages. */
  readonly noun: string;
  read(): Promise<T>;
  follow(onLog: (log: ProvisionerJobLog) => void): Promise<void>;
  logsAfter(after: number | undefined): Promise<ProvisionerJobLog[]>;
}

/**
 * Follows a job to its end: its logs live over the WebSocket, printed by stage (unless the output
 * is JSON), and its queue position while it waits. Falls back to polling when the stream breaks,
 * so a proxy that drops WebSockets costs the live view, not the work.
 */
export async function followJob<T extends JobHolder>(context: CommandContext, initial: T, source: JobSource<T>): Promise<T> {
  const printer = context.json
    ? undefined
    : new BuildLogPrinter(context.io.stdout, { verbose: context.global.verbose, color: context.io.stdout.isTTY === true });
  if (initial.matched_provisioners?.count === 0) {
    context.io.stderr.write(`warning: no provisioner daemon serves jobs with these tags; the ${source.noun} waits until one connects.\n`);
  }
  const stopWatching = new AbortController();
  let watcher: Promise<void> = Promise.resolve();
  if (printer && initial.job.status === 'pending') {
    printer.queued(initial.job);
    watcher = watchQueue(source, printer, stopWatching.signal);
  }
  let lastLogId: number | undefined;
  try {
    await source.follow((log) => {
      lastLogId = log.id;
      printer?.log(log);
    });
  } catch (error) {
    if (context.global.verbose) context.io.stderr.write(`The log stream broke (${(error as Error).message}); polling instead.\n`);
    await untilDone(source);
    for (const log of await source.logsAfter(lastLogId)) printer?.log(log);
  } finally {
    stopWatching.abort();
    await watcher;
  }
  const final = await untilDone(source);
  printer?.finish(final.job);
  return final;
}

/** Shows the queue position as it changes, until the job leaves the queue or the follow ends. */
async function watchQueue<T extends JobHolder>(source: JobSource<T>, printer: BuildLogPrinter, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    if (!(await pause(POLL_MS, signal))) return;
    const current = await source.read().catch(() => undefined);
    if (signal.aborted || current === undefined || current.job.status !== 'pending') return;
    printer.queued(current.job);
  }
}

async function untilDone<T extends JobHolder>(source: JobSource<T>): Promise<T> {
  for (;;) {
    const current = await source.read();
    if (DONE.includes(current.job.status)) return current;
    await delay(POLL_MS);
  }
}

/** Waits, or returns false at once when the signal fires. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await delay(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
