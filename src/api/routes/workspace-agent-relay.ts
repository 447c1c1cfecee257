import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { relayMap } from '../../domain/relay-map.js';
import { HttpProblem } from '../../lib/errors.js';
import {
  ListeningPortsResponse,
  RELAY_PROTOCOL_VERSION,
  RelayCloseCode,
  RelayService,
  Response,
  WorkspaceAgentConnectionInfo,
  WorkspaceAgentContainersResponse,
  WorkspaceAgentListContainersResponse,
  type ListeningPort,
  type RelayReady,
  type RelayTarget,
} from '../../sdk/wire/index.js';
import type { AgentWithOwners } from '../../store/rows.js';
import type { ApiContext } from '../context.js';
import { trackWebSocket } from '../live-connections.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { agentOf } from '../plugins/agent-authentication.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { RelayStreamError } from '../relay/agent-relay.js';
import { filterListeningPorts } from '../relay/listening-ports-filter.js';
import { logConnection } from '../relay/log-connection.js';
import { pipeSockets } from '../relay/pipe-sockets.js';
import { dialReplica, forwardHttp, RELAYED_HEADER } from '../relay/replica-forward.js';
import { presentedToken } from '../session-token.js';

const AgentParam = Type.Object({ workspaceagent: Type.String({ format: 'uuid' }) });
const Port = Type.Integer({ minimum: 1, maximum: 65535 });
const StreamQuery = {
  version: Type.Optional(Type.String()),
  service: Type.Optional(RelayService),
  port: Type.Optional(Port),
  /** What the port speaks; UDP streams carry one datagram per binary frame. */
  network: Type.Optional(Type.Union([Type.Literal('tcp'), Type.Literal('udp')])),
};
const CoordinateQuery = Type.Object(StreamQuery);
const TailnetQuery = Type.Object({ ...StreamQuery, agent: Type.Optional(Type.String({ format: 'uuid' })) });
const PtyQuery = Type.Object({
  reconnect: Type.String({ format: 'uuid' }),
  width: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  height: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  command: Type.Optional(Type.String()),
  container: Type.Optional(Type.String()),
  container_user: Type.Optional(Type.String()),
  backend_type: Type.Optional(Type.Union([Type.Literal('screen'), Type.Literal('buffered')])),
});
const ContainersQuery = Type.Object({ label: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])) });
const RecreateParams = Type.Object({ workspaceagent: Type.String({ format: 'uuid' }), devcontainer: Type.String({ minLength: 1 }) });
/** How often the relay map stream is pinged, as the reference does. */
const RELAY_MAP_PING_MS = 15_000;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the relay routes' pre-handler: the agent a stream goes to, checked and connected. */
    relayAgent?: AgentWithOwners;
    /** Set when the agent is connected to another replica: that replica's relay URL. */
    relayVia?: string;
  }
}

/** The agent's end of relay streams: it dials here with the stream id it was asked to open. */
export function agentRelaySelfRoutes(app: FastifyInstance, context: ApiContext): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/workspaceagents/me/relay',
    { websocket: true, schema: { querystring: Type.Object({ stream_id: Type.String({ format: 'uuid' }) }) } },
    async (socket, request) => {
      if (!context.relay.acceptStream(agentOf(request).agent.id, request.query.stream_id, socket))
        socket.close(4404, 'no such stream is waiting');
    },
  );
}

/** Terminals, streams, connection facts, listening ports and containers of an agent, for users. */
export async function workspaceAgentRelayRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  app.decorateRequest('relayAgent', undefined);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  /**
   * Checks the caller may connect to the agent (already found, so one the caller cannot see is
   * the 404), and that it is connected here or to another replica. HTTP questions for an agent on
   * another replica are answered from there at once; streams are forwarded there once upgraded.
   * (Where a stream opened with the session cookie comes from was checked when it was
   * authenticated: src/api/origin-check.ts.)
   */
  const connectable = async (request: FastifyRequest, reply: FastifyReply, found: AgentWithOwners): Promise<FastifyReply | undefined> => {
    authOf(request).store.workspaceAgents.authorizeConnect(found);
    request.relayAgent = found;
    const via = replicaHolding(context, request, found);
    if (via === undefined) return undefined;
    request.relayVia = via;
    // Answered here, the route's handler does not run: fastify stops at a returned reply.
    return request.ws ? undefined : forwardHttp(request, reply, `${via}${request.url}`, presentedToken(request));
  };
  const connectableInPath = async (request: FastifyRequest, reply: FastifyReply) =>
    connectable(request, reply, pathResource(request, 'workspaceAgent'));

  api.get(
    '/workspaceagents/:workspaceagent/pty',
    { websocket: true, schema: { params: AgentParam, querystring: PtyQuery }, preHandler: connectableInPath },
    async (socket, request) => {
      const { query } = request;
      const target: RelayTarget = {
        kind: 'pty',
        reconnect: query.reconnect,
        width: query.width ?? 0,
        height: query.height ?? 0,
        command: query.command ?? '',
        container: query.container ?? '',
        container_user: query.container_user ?? '',
      };
      await relay(context, socket, request, target, { announce: false });
    },
  );

  api.get(
    '/workspaceagents/:workspaceagent/coordinate',
    {
      websocket: true,
      schema: { params: AgentParam, querystring: CoordinateQuery },
      preHandler: async (request, reply) => {
        streamTarget(request.query);
        return connectableInPath(request, reply);
      },
    },
    async (socket, request) => relay(context, socket, request, streamTarget(request.query), { announce: true }),
  );

  api.get(
    '/tailnet',
    {
      websocket: true,
      schema: { querystring: TailnetQuery },
      preHandler: async (request, reply) => {
        const { query } = request;
        streamTarget(query);
        if (!query.agent)
          throw new HttpProblem(400, 'Missing the agent to connect to.', {
            validations: [{ field: 'agent', detail: 'the id of the workspace agent is required' }],
          });
        // The agent is named in the query, not the path, so it is found here.
        return connectable(request, reply, await authOf(request).store.workspaceAgents.get(query.agent));
      },
    },
    async (socket, request) => relay(context, socket, request, streamTarget(request.query), { announce: true }),
  );

  api.get('/derp-map', { websocket: true }, async (socket) => {
    socket.send(JSON.stringify(relayMap(context.values.accessUrl)));
    const timer = setInterval(() => socket.ping(), RELAY_MAP_PING_MS);
    timer.unref();
    socket.on('message', () => undefined);
    socket.on('close', () => clearInterval(timer));
  });

  // Reading the agent (done by the path's loader) is all this needs: the facts are the deployment's.
  api.get(
    '/workspaceagents/:workspaceagent/connection',
    { schema: { params: AgentParam, response: { 200: WorkspaceAgentConnectionInfo } } },
    async () => ({
      derp_map: relayMap(context.values.accessUrl),
      derp_force_websockets: true,
      disable_direct_connections: true,
      hostname_suffix: '',
    }),
  );

  api.get(
    '/workspaceagents/:workspaceagent/listening-ports',
    { schema: { params: AgentParam, response: { 200: ListeningPortsResponse } }, preHandler: connectableInPath },
    async (request) => {
      const found = relayAgentOf(request);
      const answer = await context.relay.request<{ ports: ListeningPort[] }>(found.agent.id, 'listening_ports');
      return { ports: filterListeningPorts(answer.ports, found) };
    },
  );

  api.get(
    '/workspaceagents/:workspaceagent/containers',
    {
      schema: { params: AgentParam, querystring: ContainersQuery, response: { 200: WorkspaceAgentListContainersResponse } },
      preHandler: connectableInPath,
    },
    async (request) => {
      const labels = parseLabels(request.query.label);
      const answer = await context.relay.request<Static<typeof WorkspaceAgentContainersResponse>>(
        relayAgentOf(request).agent.id,
        'containers',
      );
      const matches = (containerLabels: Readonly<Record<string, string>>) => labels.every(([key, value]) => containerLabels[key] === value);
      // No warnings are left out rather than sent as `[]`, as the reference's server does.
      const { warnings, ...rest } = answer;
      return {
        ...rest,
        containers: rest.containers.filter((container) => matches(container.labels)),
        ...(warnings.length > 0 ? { warnings } : {}),
      };
    },
  );

  api.post(
    '/workspaceagents/:workspaceagent/containers/devcontainers/:devcontainer/recreate',
    { schema: { params: RecreateParams, response: { 202: Response } }, preHandler: connectableInPath },
    async (request, reply) => {
      const answer = await context.relay.request<{ name: string }>(relayAgentOf(request).agent.id, 'recreate_devcontainer', {
        id: request.params.devcontainer,
      });
      return reply.code(202).send({
        message: 'Devcontainer recreation initiated',
        detail: `Recreation process for devcontainer "${answer.name}" has started.`,
      });
    },
  );
}

type StreamQueryValue = Static<typeof CoordinateQuery>;

/** The target a `/coordinate` or `/tailnet` request names; a 400 when it names none, both, or an unknown version. */
function streamTarget(query: StreamQueryValue): RelayTarget {
  const version = query.version ?? RELAY_PROTOCOL_VERSION;
  if (version.split('.')[0] !== RELAY_PROTOCOL_VERSION.split('.')[0]) {
    throw new HttpProblem(400, 'Unknown or unsupported API version', {
      detail: `This daemon speaks relay protocol ${RELAY_PROTOCOL_VERSION}; the client asked for ${version}.`,
    });
  }
  if ((query.service === undefined) === (query.port === undefined)) {
    throw new HttpProblem(400, 'Name exactly one of "service" and "port".', {
      validations: [
        { field: 'service', detail: 'ssh, echo or speedtest, or leave it out and give a port' },
        { field: 'port', detail: 'a TCP port inside the workspace (1-65535)' },
      ],
    });
  }
  if (query.network !== undefined && query.port === undefined) {
    throw new HttpProblem(400, '"network" goes with a port.', {
      validations: [{ field: 'network', detail: 'tcp or udp, for the port given with "port"' }],
    });
  }
  if (query.port !== undefined) return { kind: query.network ?? 'tcp', port: query.port };
  return { kind: query.service ?? 'ssh' };
}

function relayAgentOf(request: FastifyRequest): AgentWithOwners {
  if (!request.relayAgent) throw new Error(`route ${request.routeOptions.url ?? request.url} has no relay pre-handler`);
  return request.relayAgent;
}

/**
 * Where the agent's connection is: undefined when on this daemon, else the relay URL of the
 * replica that holds it. The reference refuses streams and questions for an agent connected
 * nowhere, and a forwarded request is never forwarded again.
 */
function replicaHolding(context: ApiContext, request: FastifyRequest, found: AgentWithOwners): string | undefined {
  if (context.relay.isConnected(found.agent.id)) return undefined;
  const elsewhere = found.agent.relay_url;
  const connected = found.agent.disconnected_at === null && found.agent.first_connected_at !== null;
  if (connected && elsewhere !== '' && elsewhere !== context.relay.localUrl && request.headers[RELAYED_HEADER] === undefined)
    return elsewhere;
  const state = found.agent.first_connected_at ? 'disconnected' : 'connecting';
  throw new HttpProblem(400, `Agent state is "${state}", it must be in the "connected" state.`);
}

/**
 * Opens the stream and joins the client to it. `announce` sends the client a `ready` text frame
 * first (the relay protocol of `/coordinate` and `/tailnet`); terminals get output bytes only.
 */
async function relay(
  context: ApiContext,
  socket: WebSocket,
  request: FastifyRequest,
  target: RelayTarget,
  options: { readonly announce: boolean },
): Promise<void> {
  const found = relayAgentOf(request);
  const log = request.log;
  // Hold what the client sends (terminal input, an SSH greeting) until the stream is open.
  socket.pause();
  socket.on('error', () => undefined);
  // Ending the session or access ends the stream too: the agent's side is cut at once, so input
  // the client sends before it answers the close reaches nobody.
  let agentSide: WebSocket | undefined;
  trackWebSocket(
    context,
    request,
    socket,
    async (auth) => auth.store.workspaceAgents.authorizeConnect(await auth.store.workspaceAgents.get(found.agent.id)),
    () => agentSide?.terminate(),
  );
  // Logged where the client connected, which knows its address; the replica it is forwarded to does not log it again.
  const logged = request.headers[RELAYED_HEADER] === undefined ? logConnection(context, request, found, target) : undefined;
  let ending = { reason: 'the client disconnected', code: null as number | null };
  try {
    // On another replica the whole exchange, `ready` frame included, comes from there.
    if (request.relayVia !== undefined) {
      const forwarded = await dialReplica(`${request.relayVia}${request.url}`, presentedToken(request));
      agentSide = forwarded.socket;
      ending = endingOf(forwarded.socket, ending);
      await pipeSockets(socket, forwarded, logged?.counters);
      return;
    }
    const stream = await context.relay.openStream(found.agent.id, target);
    agentSide = stream.socket;
    ending = endingOf(stream.socket, ending);
    if (socket.readyState !== socket.OPEN) {
      stream.socket.resume();
      stream.socket.close(1000, 'the client went away');
      return;
    }
    if (options.announce) socket.send(JSON.stringify({ type: 'ready', stream_id: stream.id } satisfies RelayReady));
    // A ping or a speed test is not use: a monitor probing every minute must not keep a workspace from stopping.
    // A terminal or SSH session is also a kind of use insights count; a forwarded port is not.
    if (target.kind === 'pty') context.usage.recordUse(found.workspace, { kind: 'reconnecting_pty' }, log);
    else if (target.kind === 'ssh') context.usage.recordUse(found.workspace, { kind: 'ssh' }, log);
    else if (target.kind !== 'echo' && target.kind !== 'speedtest') context.usage.record(found.workspace, log);
    const { relayed, done } = context.relay.track(stream, found.agent.id, target);
    try {
      const { totals } = context.relay;
      await pipeSockets(
        socket,
        stream,
        {
          toAgent: (bytes) => {
            relayed.toAgent += bytes;
            totals.bytesToAgent += bytes;
            logged?.counters.toAgent(bytes);
          },
          toClient: (bytes) => {
            relayed.toClient += bytes;
            totals.bytesToClient += bytes;
            logged?.counters.toClient(bytes);
          },
        },
        { 'cove.relay.kind': target.kind, 'cove.agent.id': found.agent.id },
      );
      // A session's exit status, when the agent reported one for this stream.
      if (relayed.exitCode !== undefined) ending = { ...ending, code: relayed.exitCode };
    } finally {
      done();
    }
  } catch (error) {
    const code = error instanceof RelayStreamError ? error.code : RelayCloseCode.agentGone;
    ending = { reason: (error as Error).message, code: null };
    if (socket.readyState !== socket.OPEN) return;
    // Paused, the socket would not read the client's answer to the close until the close timeout.
    socket.resume();
    socket.close(code, (error as Error).message.slice(0, 120));
  } finally {
    logged?.connection.close(ending);
  }
}

/**
 * How a stream ended, as its agent side closed: the agent's reason when it gave one (a terminal
 * says its process exited, with the code), else `fallback`. Read when the relay is done with it.
 */
function endingOf(
  agentSide: WebSocket,
  fallback: { readonly reason: string; readonly code: number | null },
): { reason: string; code: number | null } {
  const ending = { ...fallback };
  agentSide.once('close', (_code, reason) => {
    const text = reason.toString('utf8');
    if (text === '') return;
    ending.reason = text;
    const exited = /exited with code (\d+)/.exec(text);
    if (exited) ending.code = Number(exited[1]);
  });
  return ending;
}

/** `key=value` pairs of the containers filter; a 400 naming the first malformed one. */
function parseLabels(label: string | string[] | undefined): [string, string][] {
  const values = label === undefined ? [] : Array.isArray(label) ? label : [label];
  return values.map((value) => {
    const at = value.indexOf('=');
    if (at <= 0)
      throw new HttpProblem(400, 'Invalid label format', {
        detail: `"${value}" is not in the form key=value.`,
        validations: [{ field: 'label', detail: 'each label is key=value' }],
      });
    return [value.slice(0, at), value.slice(at + 1)];
  });
}
