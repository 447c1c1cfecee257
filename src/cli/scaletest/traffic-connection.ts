import { randomUUID } from 'node:crypto';
import { openAgentStream } from '../../sdk/agent-streams.js';
import { SESSION_TOKEN_HEADER, type CoveClient } from '../../sdk/client.js';
import type { Workspace, WorkspaceAgent } from '../../sdk/wire/index.js';

/** How traffic reaches a workspace: its terminal (the default), SSH, or one of its apps. */
export type TrafficMode = { readonly kind: 'pty' } | { readonly kind: 'ssh' } | { readonly kind: 'app'; readonly app: string };

/** A connection that echoes what is written to it (a terminal running `cat`, an echoing app). */
export interface TrafficConnection {
  write(text: string): void;
  onData(listener: (text: string) => void): void;
  /** Called once, when the connection ends for any reason other than `close`. */
  onEnd(listener: (reason: string) => void): void;
  close(): void;
}

/** The command the terminal or SSH session runs: it sends back every line it reads (the terminal echoes as typed too). */
const ECHO_COMMAND = 'cat';

/** Opens a connection of `mode` to the workspace's first agent. */
export async function openTrafficConnection(client: CoveClient, workspace: Workspace, mode: TrafficMode): Promise<TrafficConnection> {
  const agent = workspace.latest_build.resources.flatMap((resource) => resource.agents)[0];
  if (!agent) throw new Error(`${workspace.owner_name}/${workspace.name} has no agent`);
  switch (mode.kind) {
    case 'pty':
      return openTerminal(client, agent);
    case 'ssh':
      return openSsh(client, agent);
    case 'app':
      return openApp(client, workspace, agent, mode.app);
  }
}

async function openTerminal(client: CoveClient, agent: WorkspaceAgent): Promise<TrafficConnection> {
  const socket = await client.openSocket(`/workspaceagents/${encodeURIComponent(agent.id)}/pty`, {
    reconnect: randomUUID(),
    width: 80,
    height: 24,
    command: ECHO_COMMAND,
  });
  return socketConnection(socket, (text) => JSON.stringify({ data: text }));
}

/**
 * An app by its path-based URL (`/@owner/workspace.agent/apps/slug/`), over a WebSocket that the app
 * is to echo, as the workspace's owner: as people use their own apps, and because the deployment
 * keeps others out of an app shared with its owner alone, site owners included.
 */
async function openApp(client: CoveClient, workspace: Workspace, agent: WorkspaceAgent, slug: string): Promise<TrafficConnection> {
  const { WebSocket } = await import('ws');
  const { key } = await client.createSessionKey(workspace.owner_id);
  const url = new URL(
    `/@${encodeURIComponent(workspace.owner_name)}/${encodeURIComponent(workspace.name)}.${encodeURIComponent(agent.name)}/apps/${encodeURIComponent(slug)}/`,
    client.url,
  );
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const socket = new WebSocket(url, { headers: { [SESSION_TOKEN_HEADER]: key }, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_request, response) => {
      response.resume();
      reject(new Error(`the app ${slug} refused the WebSocket (HTTP ${response.statusCode})`));
    });
    socket.once('error', reject);
  });
  return socketConnection(socket, (text) => text);
}

function socketConnection(socket: import('ws').WebSocket, frame: (text: string) => string): TrafficConnection {
  let closing = false;
  const connection: TrafficConnection = {
    write: (text) => {
      if (socket.readyState === socket.OPEN) socket.send(frame(text));
    },
    onData: (listener) => socket.on('message', (data) => listener(String(data))),
    onEnd: (listener) => {
      socket.once('close', (code, reason) => {
        if (!closing) listener(`the stream closed (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''})`);
      });
    },
    close: () => {
      closing = true;
      socket.terminate();
    },
  };
  socket.on('error', () => undefined);
  socket.resume();
  return connection;
}

async function openSsh(client: CoveClient, agent: WorkspaceAgent): Promise<TrafficConnection> {
  const { stream } = await openAgentStream(client, agent.id, { service: 'ssh' });
  const { Client } = await import('ssh2');
  const ssh = new Client();
  const channel = await new Promise<import('ssh2').ClientChannel>((resolve, reject) => {
    ssh.once('error', reject);
    ssh.once('ready', () =>
      // No terminal: one echo, cat's (a terminal would echo each line as typed too).
      ssh.exec(ECHO_COMMAND, (error, opened) => (error ? reject(error) : resolve(opened))),
    );
    // The daemon authorized this user for this workspace; the agent's host key is fresh at each start.
    ssh.connect({ sock: stream, username: 'cove', hostVerifier: () => true, readyTimeout: 30_000 });
  });
  let closing = false;
  return {
    write: (text) => void channel.write(text),
    onData: (listener) => channel.on('data', (data: Buffer) => listener(data.toString('utf8'))),
    onEnd: (listener) => {
      channel.once('close', () => {
        if (!closing) listener('the SSH session ended');
      });
    },
    close: () => {
      closing = true;
      ssh.end();
    },
  };
}
