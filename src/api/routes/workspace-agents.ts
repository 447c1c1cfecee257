import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { appendAgentLogs } from '../../domain/agent-logs.js';
import { workspaceEventsChannel } from '../../domain/workspace-events.js';
import {
  PatchAgentLogsRequest,
  PostLogSourceRequest,
  Response,
  WorkspaceAgent,
  WorkspaceAgentLog,
  WorkspaceAgentLogSource,
} from '../../sdk/wire/index.js';
import { streamAgentLogs, toWireAgentLog } from '../agent-log-stream.js';
import { AgentRpcSession } from '../agent-rpc-session.js';
import type { ApiContext } from '../context.js';
import { httpOrWebSocketRoute } from '../http-or-websocket-route.js';
import { trackWebSocket } from '../live-connections.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { agentAuthOf, requireAgentAuthentication } from '../plugins/agent-authentication.js';
import { agentExtraRoutes } from './workspace-agent-extras.js';
import { agentMetadataRoutes } from './workspace-agent-metadata.js';
import { agentRelaySelfRoutes } from './workspace-agent-relay.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { answerAgent } from '../workspace-answers.js';
import { LogIdCursor } from '../paging.js';

const AgentParam = Type.Object({ workspaceagent: Type.String({ format: 'uuid' }) });
const LogsQuery = Type.Object({
  before: Type.Optional(LogIdCursor),
  after: Type.Optional(LogIdCursor),
  // Presence turns these on, whatever the value, as the reference's clients send them.
  follow: Type.Optional(Type.String()),
  no_compression: Type.Optional(Type.String()),
});
/** A full 1 MiB batch of output plus its JSON framing. */
const LOGS_BODY_LIMIT = 2 * 1024 * 1024;

/** The agent's own API (`/workspaceagents/me/*`), authenticated by the agent token. */
export async function agentSelfRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAgentAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/workspaceagents/me/rpc',
    { websocket: true, schema: { querystring: Type.Object({ version: Type.Optional(Type.String()) }, { additionalProperties: true }) } },
    async (socket, request) => {
      const version = request.query.version ?? '2.0';
      await new AgentRpcSession(socket, context.store, context.relay, agentAuthOf(request), version, request.log).start();
    },
  );

  api.patch(
    '/workspaceagents/me/logs',
    {
      bodyLimit: LOGS_BODY_LIMIT,
      // Programs print NUL bytes; appendAgentLogs replaces them before storing. Agents send
      // batches all the time, and storing one needs only the agent's identity.
      config: { nulBytesAllowed: true, agentFromCache: true },
      schema: { body: PatchAgentLogsRequest, response: { 200: Response } },
    },
    async (request) => {
      const { found, store } = agentAuthOf(request);
      await appendAgentLogs(store, context.store, found, request.body);
      return { message: 'Logs stored.' };
    },
  );

  api.post(
    '/workspaceagents/me/log-source',
    { schema: { body: PostLogSourceRequest, response: { 201: WorkspaceAgentLogSource } } },
    async (request, reply) => {
      const { found, store } = agentAuthOf(request);
      const { body } = request;
      const source = { id: body.id, display_name: body.display_name, icon: body.icon, created_at: context.store.nowIso() };
      await store.workspaceAgents.upsertLogSource(found, source);
      await context.store.pubsub.publish(workspaceEventsChannel(found.workspace.id), 'agent_log_source');
      // The reference answers 201 for a new source and for an existing one alike.
      return reply.code(201).send({ ...source, workspace_agent_id: found.agent.id });
    },
  );

  agentExtraRoutes(app, context);
  agentRelaySelfRoutes(app, context);
}

/** Agents as users read them, through the authorizing store. */
export async function workspaceAgentRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/workspaceagents/:workspaceagent', { schema: { params: AgentParam, response: { 200: WorkspaceAgent } } }, async (request) =>
    answerAgent(context, authOf(request).store, pathResource(request, 'workspaceAgent')),
  );

  // `startup-logs` is the removed name of `logs`; it still answers the same way.
  for (const name of ['logs', 'startup-logs']) {
    httpOrWebSocketRoute(app, {
      url: `/workspaceagents/:workspaceagent/${name}`,
      schema: { params: AgentParam, querystring: LogsQuery, response: { 200: Type.Array(WorkspaceAgentLog) } },
      handler: async (request) => {
        const { before, after } = request.query;
        return (await authOf(request).store.workspaceAgents.logs(pathResource(request, 'workspaceAgent'), { before, after })).map(
          toWireAgentLog,
        );
      },
      wsHandler: async (socket, request) => {
        const found = pathResource(request, 'workspaceAgent');
        trackWebSocket(context, request, socket, (auth) => auth.store.workspaceAgents.get(found.agent.id));
        await streamAgentLogs(socket, authOf(request).store, context.store.pubsub, found, request.query.after);
      },
    });
  }

  agentMetadataRoutes(app, context);
}
