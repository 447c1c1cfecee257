import type { FastifyRequest } from 'fastify';
import type { ConnectionType, RelayTarget } from '../../sdk/wire/index.js';
import type { AgentWithOwners } from '../../store/rows.js';
import type { ApiContext } from '../context.js';
import { authOf } from '../plugins/authentication.js';
import type { LoggedConnection } from './connection-logger.js';

/** A relayed connection being logged, and the counters its pipe adds its bytes to. */
export interface LoggedRelay {
  readonly connection: LoggedConnection;
  readonly counters: { toAgent(bytes: number): void; toClient(bytes: number): void };
}

/**
 * Opens the connection log row of a relay stream: terminals, SSH (the CLI's own and OpenSSH's
 * through `cove ssh --stdio`) and forwarded ports. Pings and speed tests are not connections
 * anyone uses the workspace through, and are not logged.
 */
export function logConnection(
  context: ApiContext,
  request: FastifyRequest,
  found: AgentWithOwners,
  target: RelayTarget,
): LoggedRelay | undefined {
  const type = connectionTypeOf(target);
  if (type === undefined) return undefined;
  const connection = context.connectionLog.open(
    {
      type,
      workspace: found.workspace,
      agentName: found.agent.name,
      userId: authOf(request).user.id,
      ip: request.ip,
      userAgent: request.headers['user-agent'] ?? '',
      slugOrPort: target.kind === 'tcp' || target.kind === 'udp' ? String(target.port) : '',
      // A terminal's reconnect id names its session across reconnections.
      ...(target.kind === 'pty' ? { connectionId: target.reconnect } : {}),
    },
    request.log,
  );
  return {
    connection,
    counters: {
      toAgent: (bytes) => (connection.bytesToWorkspace += bytes),
      toClient: (bytes) => (connection.bytesFromWorkspace += bytes),
    },
  };
}

function connectionTypeOf(target: RelayTarget): ConnectionType | undefined {
  switch (target.kind) {
    case 'pty':
      return 'reconnecting_pty';
    case 'ssh':
      return 'ssh';
    case 'tcp':
    case 'udp':
      return 'port_forwarding';
    default:
      return undefined;
  }
}
