import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
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
import { upsertLogSource } from '../../store/queries/workspace-agents.js';
import { streamAgentLogs, toWireAgentLog } from '../agent-log-stream.js';
import { AgentRpcSession } from '../agent-rpc-session.js';
import type { ApiContext } from '../context.js';
import { httpOrWebSocketRoute } from '../http-or-websocket-route.js';
import { agentOf, requireAgentAuthentication } from '../plugins/agent-authentication.js';
import { agentExtraRoutes } from './workspace-agent-extras.js';
import { agentRelaySelfRoutes } from './workspace-agent-relay.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { answerAgent } from '../workspace-answers.js';

const AgentParam = Type.Object({ workspaceagent: Type.String({ format: 'uuid' }) });
const LogsQuery = Type.Object({
  before: Type.Optional(Type.Integer()),
  after: Type.Optional(Type.Integer({ minimum: 0 })),
  // Presence turns these on, whatever the value, as the reference's clients send them.
  follow: Type.Optional(Type.String()),
  no_compression: Type.Optional(Type.String()),
});
/** A full 1 MiB batch of output plus its JSON framing. */
const LOGS_BODY_LIMIT = 2 * 1024 * 1024;

/** The agent's own API (`/workspaceagents/me/*`), authenticated by the agent token. */
export async function agentSelfRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAgentAuthentication(app, context);

  app.get(
    '/workspaceagents/me/rpc',
    { websocket: true, schema: { querystring: Type.Object({ version: Type.Optional(Type.String()) }, { additionalProperties: true }) } },
    async (socket: WebSocket, request: FastifyRequest) => {
      const version = (request.query as { version?: string }).version ?? '2.0';
      await new AgentRpcSession(socket, context.store, context.relay, agentOf(request), version, request.log).start();
    },
  );

  app.patch(
    '/workspaceagents/me/logs',
    { bodyLimit: LOGS_BODY_LIMIT, schema: { body: PatchAgentLogsRequest, response: { 200: Response } } },
    async (request) => {
      const found = agentOf(request);
      await appendAgentLogs(context.store, found.agent, found.workspace.id, request.body as PatchAgentLogsRequest);
      return { message: 'Logs stored.' };
    },
  );

  app.post(
    '/workspaceagents/me/log-source',
    { schema: { body: PostLogSourceRequest, response: { 201: WorkspaceAgentLogSource } } },
    async (request, reply) => {
      const found = agentOf(request);
      const body = request.body as PostLogSourceRequest;
      const row = {
        agent_id: found.agent.id,
        id: body.id,
        display_name: body.display_name,
        icon: body.icon,
        created_at: context.store.nowIso(),
      };
      await upsertLogSource(context.store.db, row);
      await context.store.pubsub.publish(workspaceEventsChannel(found.workspace.id), 'agent_log_source');
      // The reference answers 201 for a new source and for an existing one alike.
      return reply
        .code(201)
        .send({ id: row.id, workspace_agent_id: row.agent_id, created_at: row.created_at, display_name: row.display_name, icon: row.icon });
    },
  );

  agentExtraRoutes(app, context);
  agentRelaySelfRoutes(app, context);
}

/** Agents as users read them, through the authorizing store. */
export async function workspaceAgentRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const agentFor = (request: FastifyRequest) =>
    authOf(request).store.getWorkspaceAgent((request.params as { workspaceagent: string }).workspaceagent);

  app.get('/workspaceagents/:workspaceagent', { schema: { params: AgentParam, response: { 200: WorkspaceAgent } } }, async (request) =>
    answerAgent(context, authOf(request).store, await agentFor(request)),
  );

  // `startup-logs` is the removed name of `logs`; it still answers the same way.
  for (const name of ['logs', 'startup-logs']) {
    httpOrWebSocketRoute(app, {
      url: `/workspaceagents/:workspaceagent/${name}`,
      schema: { params: AgentParam, querystring: LogsQuery, response: { 200: Type.Array(WorkspaceAgentLog) } },
      handler: async (request) => {
        const found = await agentFor(request);
        const { before, after } = request.query as { before?: number; after?: number };
        return (await authOf(request).store.listWorkspaceAgentLogs(found, { before, after })).map(toWireAgentLog);
      },
      wsHandler: async (socket: WebSocket, request: FastifyRequest) => {
        const found = await agentFor(request);
        await streamAgentLogs(socket, context.store, found, (request.query as { after?: number }).after);
      },
    });
  }
}
