import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpProblem } from '../../lib/errors.js';
import { SYSTEM_SUBJECTS, workspaceAgentSubject } from '../../rbac/system-subjects.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import type { AgentWithOwners } from '../../store/rows.js';
import type { ApiContext } from '../context.js';
import { presentedToken } from '../session-token.js';

/** The calling agent of an agent route, and the store as that agent sees it. */
export interface AgentAuth {
  readonly found: AgentWithOwners;
  /** Scoped to the agent's workspace owner: see `workspaceAgentSubject`. */
  readonly store: AuthorizedStore;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route may take the calling agent from the cache of recent authentications, whose rows
     * are as they were then: for routes that need only who the agent is (log batches).
     */
    readonly agentFromCache?: boolean;
  }
  interface FastifyRequest {
    /** Set on routes registered under `requireAgentAuthentication`: the calling agent. */
    agentAuth?: AgentAuth;
  }
}

/**
 * Makes every route in this encapsulated context callable by workspace agents only: the token
 * (header, or `service_session_token` in the query for WebSockets) must be the token of an agent
 * of the latest build of a live workspace. A user's session is not an agent token, so it gets 401.
 */
export function requireAgentAuthentication(app: FastifyInstance, context: ApiContext): void {
  app.decorateRequest('agentAuth', undefined);
  // Authentication: no subject exists until the token has named its agent.
  const authenticator = context.store.as(SYSTEM_SUBJECTS.agentAuthenticator);
  app.addHook('onRequest', async (request) => {
    const token = presentedToken(request);
    if (!token)
      throw new HttpProblem(401, 'Workspace agent token required.', {
        detail: 'Send the agent token in the Service-Session-Token header.',
      });
    const authenticated = await authenticator.workspaceAgents.authenticate(createHash('sha256').update(token).digest('hex'), {
      cached: request.routeOptions.config.agentFromCache === true,
    });
    if (!authenticated)
      throw new HttpProblem(401, 'Workspace agent not authorized.', { detail: 'The token is not the token of any workspace agent.' });
    const { found, current } = authenticated;
    if (!current) {
      throw new HttpProblem(401, 'Workspace agent not authorized.', {
        detail:
          'The agent belongs to a build that is no longer the latest build of a live workspace; agents of newer builds have new tokens.',
      });
    }
    // The agent acts for itself, not for a user: its own subject, scoped to its workspace's owner.
    request.agentAuth = { found, store: context.store.as(workspaceAgentSubject(found.workspace)) };
  });
}

/** The calling agent of an agent route. Throws if a route forgot to require agent authentication. */
export function agentOf(request: FastifyRequest): AgentWithOwners {
  return agentAuthOf(request).found;
}

/** The calling agent of an agent route with its store. Throws if a route forgot to require agent authentication. */
export function agentAuthOf(request: FastifyRequest): AgentAuth {
  if (!request.agentAuth) throw new Error(`route ${request.routeOptions.url ?? request.url} is not agent-authenticated`);
  return request.agentAuth;
}
