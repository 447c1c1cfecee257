import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { HttpProblem } from '../../lib/errors.js';
import { isUuid } from '../../lib/random.js';
import { IssueReconnectingPTYSignedTokenRequest, IssueReconnectingPTYSignedTokenResponse } from '../../sdk/wire/index.js';
import { issueSignedPtyToken } from '../apps/reconnecting-pty-token.js';
import type { ApiContext } from '../context.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { presentedToken } from '../session-token.js';

/**
 * `POST /applications/reconnecting-pty-signed-token`: a one-minute token that opens the terminal
 * socket named in `url` as the caller, for a page whose socket cannot carry the session.
 */
export async function reconnectingPtyTokenRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/applications/reconnecting-pty-signed-token',
    { schema: { body: IssueReconnectingPTYSignedTokenRequest, response: { 200: IssueReconnectingPTYSignedTokenResponse } } },
    async (request) => {
      const { url, agentID: agentId } = request.body;
      if (!isUuid(agentId))
        throw new HttpProblem(400, 'Invalid agent ID.', { validations: [{ field: 'agentID', detail: 'must be a UUID' }] });
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        throw new HttpProblem(400, 'Invalid URL.', { validations: [{ field: 'url', detail: 'must be an absolute URL' }] });
      }
      if (!['ws:', 'wss:', 'http:', 'https:'].includes(target.protocol)) throw new HttpProblem(400, 'Invalid URL scheme.');
      if (target.pathname !== `/api/v2/workspaceagents/${agentId}/pty`) {
        throw new HttpProblem(400, 'Invalid URL path.', { detail: 'The URL must be the terminal socket of the agent named.' });
      }
      // The deployment's own host only: Cove has no workspace proxies for the token to travel to.
      const hosts = new Set([hostOf(context.values.accessUrl), request.headers.host?.toLowerCase()]);
      if (!hosts.has(target.host.toLowerCase())) throw new HttpProblem(400, 'Invalid hostname in URL.');
      const { store } = authOf(request);
      store.workspaceAgents.authorizeConnect(await store.workspaceAgents.get(agentId));
      const session = presentedToken(request);
      if (session === undefined) throw new HttpProblem(401, 'You must be signed in.');
      return { signed_token: issueSignedPtyToken(context.identity.signingKey, session, agentId, context.store.clock.now()) };
    },
  );
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}
