import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { eventually } from './eventually.js';

/** How long after access ends its connections may stay open. */
export const WITHIN_MS = 1_000;

/** A WebSocket of the daemon, with when and how it closed. */
export interface OpenSocket {
  readonly socket: WebSocket;
  readonly output: () => string;
  readonly closed: Promise<{ readonly code: number; readonly reason: string; readonly at: number }>;
}

/** Every socket the tests opened, cut at the end so that a failing test cannot hold the run open. */
const opened = new Set<WebSocket>();

/** Cuts every socket a test left open. */
export function cutOpenSockets(): void {
  for (const socket of opened) socket.terminate();
  opened.clear();
}

/** Opens a WebSocket of the API (`path` under /api/v2) with `token` in the header. */
export async function openSocket(baseUrl: string, path: string, token: string): Promise<OpenSocket> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/v2${path}`, { headers: { 'Service-Session-Token': token } });
  opened.add(socket);
  let text = '';
  socket.on('message', (data) => (text += data.toString()));
  const closed = new Promise<{ code: number; reason: string; at: number }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString(), at: Date.now() })),
  );
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return { socket, output: () => text, closed };
}

/** A web terminal into the agent; resolves once a command has run through it. */
export async function openTerminal(baseUrl: string, agentId: string, token: string): Promise<OpenSocket> {
  const terminal = await openSocket(baseUrl, `/workspaceagents/${agentId}/pty?reconnect=${randomUUID()}&width=100&height=30`, token);
  await runs(terminal);
  return terminal;
}

/** Runs a command in the terminal and waits for its answer: the terminal still works. */
export async function runs(terminal: OpenSocket): Promise<void> {
  const a = Math.floor(Math.random() * 1000);
  terminal.socket.send(JSON.stringify({ data: `echo $((${a}+1000))z\r` }));
  await eventually(() => assert.ok(terminal.output().includes(`${a + 1000}z`), terminal.output()), 5_000);
}

/** Asserts that `open` was closed for its session within 1 s of `answeredAt`. */
export async function closedFor(open: OpenSocket, answeredAt: number, what: string): Promise<void> {
  const deadline = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5_000).unref());
  const closed = await Promise.race([open.closed, deadline]);
  assert.ok(closed, `${what} is still open 5 s after access ended`);
  assert.equal(closed.code, 4401, `${what} closed with ${closed.code} ${closed.reason}`);
  assert.ok(closed.reason.length > 0, `${what} says why it closed`);
  assert.ok(closed.at - answeredAt <= WITHIN_MS, `${what} closed ${closed.at - answeredAt} ms after access ended`);
}
