import type { WebSocket } from 'ws';
import { agentLogsChannel } from '../domain/agent-logs.js';
import { isFinalLifecycle } from '../domain/agent-status.js';
import { workspaceEventsChannel } from '../domain/workspace-events.js';
import type { WorkspaceAgentLog } from '../sdk/wire/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { PubSub } from '../store/pubsub.js';
import type { AgentLogRow, AgentWithOwners } from '../store/rows.js';

/** An agent's log row as the API shows it. */
export function toWireAgentLog(row: AgentLogRow): WorkspaceAgentLog {
  return {
    id: Number(row.id),
    created_at: row.created_at,
    level: row.level as WorkspaceAgentLog['level'],
    output: row.output,
    source_id: row.log_source_id,
  };
}

/**
 * Follows an agent's logs over a WebSocket, as `streamJobLogs` does for jobs: the backlog after
 * `after`, then each new line as it is stored, one JSON entry per text frame. Closes with 1000
 * "done" once the agent has shut down or its build is no longer the workspace's latest. `store` is
 * the reader's, which found the agent; `pubsub` tells of new lines and of the workspace's changes.
 */
export async function streamAgentLogs(
  socket: WebSocket,
  store: AuthorizedStore,
  pubsub: PubSub,
  found: AgentWithOwners,
  after: number | undefined,
): Promise<void> {
  const agentId = found.agent.id;
  let lastId = after ?? 0;
  let sending = Promise.resolve();
  let closed = false;

  const flush = async (): Promise<void> => {
    for (const log of await store.workspaceAgents.logs(found, { after: lastId })) {
      if (socket.readyState !== socket.OPEN) return;
      socket.send(JSON.stringify(toWireAgentLog(log)));
      lastId = Number(log.id);
    }
  };
  const finishIfDone = async (): Promise<void> => {
    const agent = await store.workspaceAgents.getRow(found);
    const live = agent && !isFinalLifecycle(agent.lifecycle_state) && (await store.workspaceAgents.isBuildLatest(found));
    if (!live) {
      await flush();
      close(1000, 'done');
    }
  };
  const close = (code: number, reason: string) => {
    if (closed) return;
    closed = true;
    void Promise.all([stopLogs, stopWorkspace]).then((stops) => Promise.all(stops.map((stop) => stop())));
    clearInterval(heartbeat);
    if (socket.readyState === socket.OPEN) socket.close(code, reason);
  };
  const enqueue = (step: () => Promise<unknown>) => {
    sending = sending.then(step).then(
      () => undefined,
      () => close(1011, 'internal error'),
    );
  };

  // One read for however many batches were stored while a read waited its turn: agents' batches
  // are stored several at a time, and each tells of itself.
  let flushWaiting = false;
  const flushSoon = () => {
    if (flushWaiting) return;
    flushWaiting = true;
    enqueue(() => {
      flushWaiting = false;
      return flush();
    });
  };

  const stopLogs = pubsub.subscribe(agentLogsChannel(agentId), flushSoon);
  // Lifecycle changes and new builds arrive as workspace events.
  const stopWorkspace = pubsub.subscribe(workspaceEventsChannel(found.workspace.id), () => enqueue(finishIfDone));
  const heartbeat = setInterval(() => {
    if (socket.readyState === socket.OPEN) socket.ping();
  }, 15_000);
  heartbeat.unref();
  socket.on('close', () => close(1000, 'client closed'));
  await Promise.all([stopLogs, stopWorkspace]);
  enqueue(flush);
  enqueue(finishIfDone);
}
