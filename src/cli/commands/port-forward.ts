import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { joinStreams } from '../../lib/join-streams.js';
import { AgentStreamError, openAgentStream } from '../../sdk/agent-streams.js';
import type { CoveClient } from '../../sdk/client.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { resolveWorkspaceAgent } from '../workspace-agent-ref.js';

/** One `--tcp` mapping. */
interface Forward {
  readonly bindHost: string;
  readonly localPort: number;
  readonly remotePort: number;
}

/** `cove port-forward`: local TCP ports that reach ports inside a workspace. */
export const portForwardCommand: CommandSpec = {
  name: 'port-forward',
  aliases: ['tunnel'],
  summary: 'Forward local TCP ports to ports inside a workspace',
  description:
    "Listens on each LOCAL port and carries every connection to REMOTE on the workspace's loopback " +
    'interface, through the deployment. Runs until interrupted (Ctrl+C).',
  arguments: [{ name: 'workspace', description: 'WORKSPACE, OWNER/WORKSPACE, or either followed by .AGENT', required: true }],
  options: [{ flags: '--tcp <mapping...>', description: 'LOCAL:REMOTE or [BIND:]LOCAL:REMOTE, e.g. 8080:8080 (repeatable)' }],
  examples: ['cove port-forward dev --tcp 18080:8080', 'cove port-forward dev --tcp 3000:3000 --tcp 127.0.0.1:5433:5432'],
  async run(context, [workspaceText = ''], options) {
    const mappings = ((options['tcp'] as string[] | undefined) ?? []).map(parseForward);
    if (mappings.length === 0)
      throw new CliError('Nothing to forward.', { hint: 'Name ports with --tcp LOCAL:REMOTE, e.g. --tcp 8080:8080.' });
    const client = await context.client();
    const { agent, label } = await resolveWorkspaceAgent(client, workspaceText, { io: context.io });
    const servers = await Promise.all(mappings.map((forward) => listen(context, client, agent.id, forward)));
    const bound = servers.map(({ forward, server }) => ({
      local: `${forward.bindHost}:${(server.address() as AddressInfo).port}`,
      remote_port: forward.remotePort,
    }));
    if (context.json) printJson(context.io, { workspace: label, agent: agent.name, forwards: bound });
    else
      for (const entry of bound)
        context.io.stderr.write(`Forwarding ${entry.local} to port ${entry.remote_port} in workspace "${label}"\n`);
    await untilInterrupted();
    for (const { server } of servers) server.close();
    return 0;
  },
};

function parseForward(text: string): Forward {
  const parts = text.split(':');
  const ports = parts.slice(-2).map((part) => (/^\d+$/.test(part) ? Number(part) : Number.NaN));
  const [localPort = Number.NaN, remotePort = Number.NaN] = ports.length === 1 ? [ports[0], ports[0]] : ports;
  const bindHost = parts.length > 2 ? parts.slice(0, -2).join(':') : '127.0.0.1';
  if (!(localPort >= 0 && localPort <= 65535) || !(remotePort >= 1 && remotePort <= 65535)) {
    throw new CliError(`--tcp "${text}" is not a port mapping.`, { hint: 'Give LOCAL:REMOTE ports, e.g. --tcp 18080:8080.' });
  }
  return { bindHost, localPort, remotePort };
}

async function listen(
  context: CommandContext,
  client: CoveClient,
  agentId: string,
  forward: Forward,
): Promise<{ forward: Forward; server: Server }> {
  const server = createServer((socket) => void carry(context, client, agentId, forward, socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new CliError(`Cannot listen on ${forward.bindHost}:${forward.localPort}: ${error.code ?? error.message}.`, {
          hint: 'Choose another local port.',
        }),
      ),
    );
    server.listen(forward.localPort, forward.bindHost, () => resolve());
  });
  return { forward, server };
}

/** One local connection: a relay stream to the remote port, joined both ways. */
async function carry(context: CommandContext, client: CoveClient, agentId: string, forward: Forward, socket: Socket): Promise<void> {
  socket.pause();
  try {
    const { stream } = await openAgentStream(client, agentId, { port: forward.remotePort });
    socket.setNoDelay(true);
    joinStreams(socket, stream);
  } catch (error) {
    const reason = error instanceof AgentStreamError ? error.message : (error as Error).message;
    context.io.stderr.write(`Could not reach port ${forward.remotePort} in the workspace: ${reason}\n`);
    socket.destroy();
  }
}

function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
