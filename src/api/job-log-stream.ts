import type { WebSocket } from 'ws';
import { jobEventsChannel } from '../domain/provisioner-events.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { PubSub } from '../store/pubsub.js';
import { toWireJobLog } from './convert/provisioner-job.js';

/**
 * Streams a job's logs over a WebSocket: the backlog after `after`, then each new batch as it is
 * stored, one JSON log entry per text frame. Closes with 1000 "done" when the job has finished
 * (at once after the backlog, if it already had). `store` is the caller's: the job must be one
 * they may read.
 */
export async function streamJobLogs(
  socket: WebSocket,
  store: AuthorizedStore,
  pubsub: PubSub,
  jobId: string,
  after: number | undefined,
): Promise<void> {
  const reader = await store.provisionerJobs.followLogs(jobId);
  let lastId = after ?? 0;
  let sending = Promise.resolve();
  let closed = false;

  const flush = async (): Promise<boolean> => {
    const logs = await reader.logsAfter(lastId);
    for (const log of logs) {
      if (socket.readyState !== socket.OPEN) return false;
      socket.send(JSON.stringify(toWireJobLog(log)));
      lastId = Number(log.id);
    }
    return true;
  };
  const finishIfDone = async (): Promise<void> => {
    if (await reader.finished()) {
      await flush();
      close(1000, 'done');
    }
  };
  const close = (code: number, reason: string) => {
    if (closed) return;
    closed = true;
    void unsubscribe.then((stop) => stop());
    clearInterval(heartbeat);
    if (socket.readyState === socket.OPEN) socket.close(code, reason);
  };
  // Events may race with the backlog query; each step runs after the previous one, in order.
  const enqueue = (step: () => Promise<unknown>) => {
    sending = sending.then(step).then(
      () => undefined,
      () => close(1011, 'internal error'),
    );
  };

  const unsubscribe = pubsub.subscribe(jobEventsChannel(jobId), (event) => {
    enqueue(event === 'done' ? finishIfDone : flush);
  });
  const heartbeat = setInterval(() => {
    if (socket.readyState === socket.OPEN) socket.ping();
  }, 15_000);
  heartbeat.unref();
  socket.on('close', () => close(1000, 'client closed'));
  await unsubscribe;
  enqueue(flush);
  enqueue(finishIfDone);
}
