import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpProblem } from '../../lib/errors.js';
import { agentBuildIsCurrent, getAgentByTokenHash, type AgentWithOwners } from '../../store/queries/workspace-agents.js';
import type { ApiContext } from '../context.js';
import { presentedToken } from '../session-token.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on routes registered under `requireAgentAuthentication`: the calling agent. */
    agent?: AgentWithOwners;
  }
}

/**
 * Makes every route in this encapsulated context callable by workspace agents only: the token
 * (header, or `service_session_token` in the query for WebSockets) must be the token of an agent
 * of the latest build of a live workspace. A user's session is not an agent token, so it gets 401.
 */
export function requireAgentAuthentication(app: FastifyInstance, context: ApiContext): void {
  app.decorateRequest('agent', undefined);
  app.addHook('onRequest', async (request) => {
    const token = presentedToken(request);
    if (!token)
      throw new HttpProblem(401, 'Workspace agent token required.', {
        detail: 'Send the agent token in the Service-Session-Token header.',
      });
    const found = await getAgentByTokenHash(context.store.db, createHash('sha256').update(token).digest('hex'));
    if (!found)
      throw new HttpProblem(401, 'Workspace agent not authorized.', { detail: 'The token is not the token of any workspace agent.' });
    if (!(await agentBuildIsCurrent(context.store.db, found.workspace.id, found.build.id))) {
      throw new HttpProblem(401, 'Workspace agent not authorized.', {
        detail:
          'The agent belongs to a build that is no longer the latest build of a live workspace; agents of newer builds have new tokens.',
      });
    }
    request.agent = found;
  });
}

/** The calling agent of an agent route. Throws if a route forgot to require agent authentication. */
export function agentOf(request: FastifyRequest): AgentWithOwners {
  if (!request.agent) throw new Error(`route ${request.routeOptions.url ?? request.url} is not agent-authenticated`);
  return request.agent;
}
