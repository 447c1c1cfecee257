import { randomBytes } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import type { WebSocket } from 'ws';
import { SpeedtestClientMessage, type SpeedtestAgentMessage } from '../../sdk/wire/relay-protocol.js';
import { closeStream } from './relay-stream.js';

/** Size of one data frame. */
const CHUNK_BYTES = 64 * 1024;
/** Frames handed to the socket and not yet written out: enough to keep the relay busy, bounded memory. */
const FRAMES_IN_FLIGHT = 16;
/** How often an upload reports what has arrived. */
const PROGRESS_MS = 100;
/** The longest run the agent accepts, so a stray client cannot keep it sending. */
const MAX_DURATION_MS = 5 * 60_000;

/**
 * The agent's end of `service=speedtest` streams (docs/relay-protocol.md): waits for the client's
 * `start`, then either sends data for the asked duration (`down`) or counts what the client sends
 * (`up`). One run per stream; anything else closes it with 1003.
 */
export function serveSpeedtest(socket: WebSocket): void {
  let started = false;
  let received = 0;
  let reported = -1;
  let progress: NodeJS.Timeout | undefined;
  const send = (message: SpeedtestAgentMessage): void => socket.send(JSON.stringify(message));
  socket.on('close', () => clearInterval(progress));
  socket.on('message', (data, isBinary) => {
    if (isBinary) {
      received += (data as Buffer).length;
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(String(data));
    } catch {
      message = undefined;
    }
    if (!Value.Check(SpeedtestClientMessage, message)) {
      closeStream(socket, 1003, 'not a speed test message');
      return;
    }
    if (message.type === 'end') {
      clearInterval(progress);
      send({ type: 'done', bytes: received });
      return;
    }
    if (started) {
      closeStream(socket, 1003, 'one speed test per stream');
      return;
    }
    started = true;
    const duration = Math.min(message.duration_ms, MAX_DURATION_MS);
    if (message.direction === 'down') {
      sendFor(socket, duration);
      return;
    }
    progress = setInterval(() => {
      if (received === reported) return;
      reported = received;
      send({ type: 'progress', bytes: received });
    }, PROGRESS_MS);
  });
  socket.resume();
}

/** Sends data frames as fast as the relay takes them for `durationMs`, then `done` with the total. */
function sendFor(socket: WebSocket, durationMs: number): void {
  const chunk = randomBytes(CHUNK_BYTES);
  const deadline = Date.now() + durationMs;
  let inFlight = 0;
  let sent = 0;
  let finished = false;
  const pump = (): void => {
    if (finished || socket.readyState !== socket.OPEN) return;
    while (inFlight < FRAMES_IN_FLIGHT && Date.now() < deadline) {
      inFlight++;
      sent += chunk.length;
      socket.send(chunk, { binary: true }, () => {
        inFlight--;
        pump();
      });
    }
    if (Date.now() >= deadline && inFlight === 0) {
      finished = true;
      socket.send(JSON.stringify({ type: 'done', bytes: sent } satisfies SpeedtestAgentMessage));
    }
  };
  // Frames still in flight at the deadline finish the run from their callbacks; this covers none left.
  setTimeout(pump, durationMs + 1).unref();
  pump();
}
