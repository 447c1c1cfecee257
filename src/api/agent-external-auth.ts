import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ExternalAuthProvider } from '../domain/external-auth/external-auth-provider.js';
import { gitCredentials } from '../domain/external-auth/git-credentials.js';
import { externalAuthLinkChannel, freshToken, linkPageUrl, type FreshToken } from '../domain/external-auth/links.js';
import { hasRegex, matchProvider } from '../domain/external-auth/match-provider.js';
import { HttpProblem } from '../lib/errors.js';
import type { AgentExternalAuthQuery, AgentExternalAuthResponse } from '../sdk/wire/index.js';
import type { ApiContext } from './context.js';
import { agentAuthOf } from './plugins/agent-authentication.js';

/** How often a `listen` request looks at the link again when no pubsub notice came. */
const LISTEN_POLL_MS = 1000;

/**
 * `GET /workspaceagents/me/external-auth`: the workspace owner's token of the provider that
 * `id` names or whose regex matches the git remote `match` (`url`), with the credentials git
 * should present; or, while the owner has no working link, the page to link at. With `listen`,
 * the answer waits until the owner has linked (the reference's gitaskpass asks so and keeps
 * waiting), for as long as the agent keeps the request open.
 */
export async function agentExternalAuth(
  context: ApiContext,
  request: FastifyRequest<{ Querystring: AgentExternalAuthQuery }>,
  reply: FastifyReply,
): Promise<AgentExternalAuthResponse> {
  const { query } = request;
  const match = query.match || query.url || undefined;
  const id = query.id || undefined;
  if (match === undefined && id === undefined) throw new HttpProblem(400, "'url' or 'id' must be provided!");
  if (match !== undefined && id !== undefined) {
    throw new HttpProblem(400, "Only one of 'url' or 'id' may be provided.", {
      detail: 'Match a git remote URL, or name a provider by id, not both.',
    });
  }
  const provider = findProvider(context.values.externalAuthProviders, { match, id });
  const { found, store } = agentAuthOf(request);
  const ownerId = found.workspace.owner_id;
  const url = linkPageUrl(context.values.accessUrl, provider.id);
  const ask = () =>
    freshToken(store, context.externalAuthOAuth, provider, ownerId, {
      now: () => context.store.clock.now(),
      validate: 'recently',
    });
  if (query.listen === undefined) return answer(provider, await ask(), url);
  // A listening agent waits out a provider that does not answer yet, as it waits for the link.
  const first = await ask().catch((error: unknown) => {
    request.log.warn({ err: error, provider: provider.id }, 'external auth token not available yet');
    return undefined;
  });
  if (first?.kind === 'token') return answer(provider, first, url);

  // Long poll: woken by the owner's link being made (on any replica), and every second besides.
  let wake: () => void = () => undefined;
  let closed = false;
  const onClose = () => {
    closed = true;
    wake();
  };
  reply.raw.once('close', onClose);
  const unsubscribe = await context.store.pubsub.subscribe(externalAuthLinkChannel(ownerId), () => wake());
  try {
    while (!closed) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, LISTEN_POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (closed) break;
      let next: FreshToken;
      try {
        next = await ask();
      } catch (error) {
        // A provider that is down now may be back at the next look; the agent keeps waiting.
        request.log.warn({ err: error, provider: provider.id }, 'external auth token not available yet');
        continue;
      }
      if (next.kind === 'token') return answer(provider, next, url);
    }
    return { url };
  } finally {
    reply.raw.off('close', onClose);
    await unsubscribe();
  }
}

/** The provider `id` names, or the first whose regex matches the remote URL; 404 when none does. */
function findProvider(
  providers: readonly ExternalAuthProvider[],
  asked: { readonly match: string | undefined; readonly id: string | undefined },
): ExternalAuthProvider {
  const provider = matchProvider(providers, {
    ...(asked.id !== undefined ? { id: asked.id } : {}),
    ...(asked.match !== undefined ? { match: asked.match } : {}),
  });
  if (provider) return provider;
  const what = asked.match !== undefined ? `matching "${asked.match}"` : `with id "${asked.id}"`;
  const withRegex = providers.filter(hasRegex);
  throw new HttpProblem(404, `No external auth provider ${what} was found.`, {
    detail:
      providers.length === 0
        ? 'No external auth providers are configured in this deployment, so no regex can match and no id exists.'
        : `The configured providers are ${providers.map((p) => `"${p.id}"`).join(', ')}; their regexes: ${
            withRegex.map((p) => `${p.id}=${JSON.stringify(p.regex.source)}`).join(', ') || 'none'
          }.`,
  });
}

function answer(provider: ExternalAuthProvider, fresh: FreshToken, url: string): AgentExternalAuthResponse {
  if (fresh.kind !== 'token') return { url };
  const token = fresh.link.accessToken;
  return { access_token: token, token_extra: { ...fresh.link.extra }, type: provider.type, ...gitCredentials(provider, token) };
}
