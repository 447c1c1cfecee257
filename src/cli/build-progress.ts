import { setTimeout as delay } from 'node:timers/promises';
import { ApiError } from '../sdk/api-error.js';
import type { CoveClient } from '../sdk/client.js';
import type { CreateWorkspaceBuildRequest, Workspace, WorkspaceBuild } from '../sdk/wire/index.js';
import { BuildLogPrinter } from './build-logs.js';
import { CliError } from './cli-error.js';
import type { CommandContext } from './command.js';
import { printJson } from './output.js';

/** How often the build is asked for its queue position, and for its end when the log stream broke. */
const POLL_MS = 1000;

const DONE = ['succeeded', 'failed', 'canceled'];

/**
 * Follows a workspace build to its end: its logs live over the WebSocket, printed by stage
 * (unless the output is JSON), and its queue position while it waits. Falls back to polling
 * when the stream breaks, so a proxy that drops WebSockets costs the live view, not the build.
 */
export async function followBuild(context: CommandContext, client: CoveClient, build: WorkspaceBuild): Promise<WorkspaceBuild> {
  const printer = context.json ? undefined : new BuildLogPrinter(context.io.stdout, { verbose: context.global.verbose, color: context.io.stdout.isTTY === true });
  if (build.matched_provisioners?.count === 0) {
    context.io.stderr.write('warning: no provisioner daemon serves jobs with these tags; the build waits until one connects.\n');
  }
  const stopWatching = new AbortController();
  let watcher: Promise<void> = Promise.resolve();
  if (printer && build.job.status === 'pending') {
    printer.queued(build.job);
    watcher = watchQueue(client, build.id, printer, stopWatching.signal);
  }
  let lastLogId: number | undefined;
  try {
    await client.followWorkspaceBuildLogs(build.id, (log) => {
      lastLogId = log.id;
      printer?.log(log);
    });
  } catch (error) {
    if (context.global.verbose) context.io.stderr.write(`The log stream broke (${(error as Error).message}); polling instead.\n`);
    await untilDone(client, build.id);
    const logs = await client.workspaceBuildLogs(build.id);
    for (const log of logs) if (lastLogId === undefined || log.id > lastLogId) printer?.log(log);
  } finally {
    stopWatching.abort();
    await watcher;
  }
  const final = await untilDone(client, build.id);
  printer?.finish(final.job);
  return final;
}

/**
 * Queues a build of the workspace and follows it to its end. A build while another is active
 * gets the API's message and a way out.
 */
export async function runBuild(context: CommandContext, client: CoveClient, workspace: Workspace, label: string, request: CreateWorkspaceBuildRequest): Promise<WorkspaceBuild> {
  let build: WorkspaceBuild;
  try {
    build = await client.createWorkspaceBuild(workspace.id, request);
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) {
      throw new CliError(`${error.message} (workspace "${label}" is ${workspace.latest_build.status})`, {
        hint: `Wait for it to finish (see "cove show ${label}"), or cancel it with "cove workspaces cancel ${label}".`,
      });
    }
    throw error;
  }
  return followBuild(context, client, build);
}

/**
 * Says how a build ended: the workspace as JSON under `-o json` (even when the build failed, so
 * scripts see its state), then the job's error as a CliError, or else where the workspace is now.
 */
export async function reportBuild(context: CommandContext, client: CoveClient, label: string, build: WorkspaceBuild): Promise<number> {
  if (context.json) printJson(context.io, await client.workspace(build.workspace_id, build.transition === 'delete'));
  requireSucceeded(build, label);
  context.say(stateLine(label, build));
  return 0;
}

/** The build, when its job succeeded; else the job's error as a CliError. */
export function requireSucceeded(build: WorkspaceBuild, label: string): WorkspaceBuild {
  const { job } = build;
  if (job.status === 'succeeded') return build;
  const what = `The ${build.transition} build of workspace "${label}"`;
  if (job.status === 'canceled') throw new CliError(`${what} was canceled.`);
  throw new CliError(`${what} failed: ${job.error || 'no reason was given'}`, { hint: 'The build log above shows where it went wrong.' });
}

/** The line that says where a workspace ended up, e.g. `Workspace "dev" is running.` */
export function stateLine(label: string, build: Pick<WorkspaceBuild, 'status'>): string {
  switch (build.status) {
    case 'deleted':
      return `Workspace "${label}" has been deleted.`;
    case 'failed':
      return `The last build of workspace "${label}" failed.`;
    case 'canceled':
      return `The last build of workspace "${label}" was canceled.`;
    default:
      return `Workspace "${label}" is ${build.status}.`;
  }
}

/** Shows the queue position as it changes, until the build leaves the queue or the follow ends. */
async function watchQueue(client: CoveClient, id: string, printer: BuildLogPrinter, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    if (!(await pause(POLL_MS, signal))) return;
    const build = await client.workspaceBuild(id).catch(() => undefined);
    if (signal.aborted || build === undefined || build.job.status !== 'pending') return;
    printer.queued(build.job);
  }
}

async function untilDone(client: CoveClient, id: string): Promise<WorkspaceBuild> {
  for (;;) {
    const build = await client.workspaceBuild(id);
    if (DONE.includes(build.job.status)) return build;
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
