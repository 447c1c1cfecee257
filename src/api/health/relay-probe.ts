import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { DaemonToAgentMessage } from '../../sdk/wire/index.js';
import type { AgentRelay } from '../relay/agent-relay.js';
import { dialProbe } from './probe-socket.js';

const DIAL_TIMEOUT_MS = 10_000;

/**
 * The far end of the relay check: it stands in for a workspace agent. Attached to the relay like
 * an agent's rpc socket, it is asked to open a stream, dials back through the access URL to
 * `/api/v2/debug/relay-probe/agent` as an agent dials `/workspaceagents/me/relay`, says `ready`
 * and echoes what crosses. So a probe's bytes take the path a user's do: through the access URL,
 * the relay's stream table and its pipe, both ways.
 */
export class RelayProbeAgent {
  /** The id the relay knows this stand-in by; no workspace agent has it. */
  readonly agentId = randomUUID();
  /** What happened on the agent's side of each probe, for the report's client logs. */
  readonly logs: string[] = [];
  readonly errors: string[] = [];
  #detach: (() => void) | undefined;
  readonly #sockets = new Set<WebSocket>();

  constructor(
    private readonly relay: AgentRelay,
    private readonly accessUrl: () => string,
    private readonly key: string,
  ) {}

  /** Makes the stand-in reachable through the relay until the returned function is called. */
  attach(): () => void {
    this.#detach?.();
    this.logs.length = 0;
    this.errors.length = 0;
    const detach = this.relay.attach(this.agentId, { send: (message) => this.#receive(message) }, { probe: true });
    this.#detach = () => {
      detach();
      for (const socket of this.#sockets) socket.terminate();
      this.#sockets.clear();
    };
    return () => {
      this.#detach?.();
      this.#detach = undefined;
    };
  }

  #receive(message: DaemonToAgentMessage): void {
    if (message.type !== 'open_stream') return;
    const url = `${this.accessUrl()}/api/v2/debug/relay-probe/agent?stream_id=${message.stream_id}`;
    this.logs.push(`asked to open stream ${message.stream_id}`);
    dialProbe(url, this.key, DIAL_TIMEOUT_MS).then(
      (socket) => {
        this.#sockets.add(socket);
        socket.once('close', () => this.#sockets.delete(socket));
        this.logs.push(`dialled back ${url.split('?')[0] ?? url}`);
        socket.send(JSON.stringify({ type: 'ready' }));
        socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
      },
      (error: unknown) => this.errors.push((error as Error).message),
    );
  }
}
