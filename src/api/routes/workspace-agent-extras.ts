import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordAppStatus } from '../../domain/app-statuses.js';
import { agentExternalAuth } from '../agent-external-auth.js';
import {
  AgentExternalAuthQuery,
  AgentExternalAuthResponse,
  AgentGitSshKey,
  PatchAppStatusRequest,
  Response,
} from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { agentAuthOf } from '../plugins/agent-authentication.js';
import { sseStart, sseWrite, SSE_PING_MS } from '../server-sent-events.js';

/**
 * The agent's own routes beyond its rpc socket and logs: app statuses, the owner's git SSH key,
 * external auth and the reinitialization stream. Registered inside `agentSelfRoutes`, so every
 * one of them takes the agent token.
 */
export function agentExtraRoutes(app: FastifyInstance, context: ApiContext): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.patch('/workspaceagents/me/app-status', { schema: { body: PatchAppStatusRequest, response: { 200: Response } } }, async (request) => {
    const { found, store } = agentAuthOf(request);
    await recordAppStatus(store, context.store, found, request.body);
    return { message: 'App status stored.' };
  });

  // The private key goes to the agent only, which its token proves belongs to the owner's workspace;
  // the agent's store may read the personal data of that owner and of nobody else.
  api.get('/workspaceagents/me/gitsshkey', { schema: { response: { 200: AgentGitSshKey } } }, async (request) => {
    const { found, store } = agentAuthOf(request);
    const key = await store.users.gitSshKey(found.workspace.owner_id);
    return { public_key: key.public_key, private_key: key.private_key };
  });

  // `gitauth` is the removed name of `external-auth`; it still answers the same way, as the reference's does.
  for (const name of ['external-auth', 'gitauth']) {
    api.get(
      `/workspaceagents/me/${name}`,
      { schema: { querystring: AgentExternalAuthQuery, response: { 200: AgentExternalAuthResponse } } },
      async (request, reply) => agentExternalAuth(context, request, reply),
    );
  }

  app.get('/workspaceagents/me/reinit', async (request, reply) => reinitStream(request, reply));
}

/**
 * The reinitialization stream (reference §9). Its only event is a prebuilt workspace being
 * claimed; Cove has no prebuilds, so the stream sends nothing but pings until the agent leaves.
 * It is server-sent events, as the reference's agents expect, and pings at once so the agent
 * knows it is connected.
 */
async function reinitStream(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.hijack();
  sseStart(reply);
  const ping = () => sseWrite(reply, 'ping', undefined);
  ping();
  const timer = setInterval(ping, SSE_PING_MS);
  timer.unref();
  request.raw.on('close', () => clearInterval(timer));
}
