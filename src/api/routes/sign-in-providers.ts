import { Type, type Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONVERT_LOGIN_COOKIE, verifyLoginConversion } from '../../domain/convert-login.js';
import { signInExternalUser, type ExternalIdentity } from '../../domain/external-sign-in.js';
import { GithubSignIn } from '../../domain/github-sign-in.js';
import { idpSyncSettings } from '../../domain/idp-sync.js';
import { OidcSignIn } from '../../domain/oidc-sign-in.js';
import { syncAtSignIn } from '../../domain/oidc-sync.js';
import {
  SIGN_IN_STATE_COOKIE,
  SIGN_IN_VALIDITY_MS,
  beginSignIn,
  finishSignIn,
  safeRedirect,
  type PendingSignIn,
  type SignInProvider,
} from '../../domain/sign-in-state.js';
import { HttpProblem } from '../../lib/errors.js';
import { SYSTEM_SUBJECTS } from '../../rbac/system-subjects.js';
import { AuthMethods } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { rateLimitHook } from '../plugins/rate-limit.js';
import { toProblem } from '../problems.js';
import { readCookie, setSessionCookie } from '../session-token.js';
import { signInFailedPage, type SignInLink } from '../sign-in-pages.js';
import { denyFraming } from '../frame-protection.js';
import { signInAuditRequest } from '../plugins/audit.js';

/** Paths of the two callbacks, which also start a sign-in when called without a code. */
export const OIDC_CALLBACK_PATH = '/api/v2/users/oidc/callback';
export const GITHUB_CALLBACK_PATH = '/api/v2/users/oauth2/github/callback';

/** What a provider does in a sign-in: where to send the browser, and who came back. */
interface ProviderFlow {
  authorizationUrl(pending: PendingSignIn): Promise<URL>;
  identity(callbackQuery: URLSearchParams, pending: PendingSignIn): Promise<ExternalIdentity>;
}

const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
  error_description: Type.Optional(Type.String()),
  /** Where the browser goes once signed in: a path on this deployment. */
  redirect: Type.Optional(Type.String()),
  /** The `state_string` of `POST /users/{user}/convert-login`, to finish a conversion. */
  oidc_merge_state: Type.Optional(Type.String()),
});

/** The ways to sign in this deployment offers, as `GET /users/authmethods` and the CLI page show them. */
export function signInLinks(context: ApiContext, redirect: string): SignInLink[] {
  const { values } = context;
  const query = `?redirect=${encodeURIComponent(redirect)}`;
  const links: SignInLink[] = [];
  if (values.oidcIssuerUrl) {
    links.push({
      label: values.oidcSignInText,
      href: `${OIDC_CALLBACK_PATH}${query}`,
      ...(values.oidcIconUrl ? { iconUrl: values.oidcIconUrl } : {}),
    });
  }
  if (values.githubClientId) links.push({ label: 'GitHub', href: `${GITHUB_CALLBACK_PATH}${query}` });
  return links;
}

/**
 * Sign-in through OIDC and GitHub, and the list of sign-in methods. The callbacks are
 * unauthenticated by nature: the browser arrives from the provider with a code and a state, and
 * the state (bound to this browser by a cookie and spent once) is what proves the sign-in was
 * started here. A refusal is a small HTML page for a browser, or the spec's error body for a
 * client that asks for JSON; nothing a provider or browser sends ends in a 500.
 */
export async function signInProviderRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.addHook(
    'onRequest',
    rateLimitHook(context.rateLimits, (limits) => limits.api),
  );
  const loginLimit = rateLimitHook(context.rateLimits, (limits) => limits.login);
  // Nobody is signed in until the provider vouches for them.
  const signInStore = context.store.as(SYSTEM_SUBJECTS.externalSignIn);
  const { values } = context;
  const syncSettings = idpSyncSettings(values);
  // Group and role sync act as their own subject: the claims decide, not the user signing in.
  const syncStore = context.store.as(SYSTEM_SUBJECTS.idpSync);
  // Built on first use: with the default access URL, the redirect URI is known only once the port is bound.
  let oidc: OidcSignIn | undefined;
  let github: GithubSignIn | undefined;
  const flowOf = (provider: SignInProvider): ProviderFlow => {
    if (provider === 'oidc') {
      if (!values.oidcIssuerUrl) {
        throw new HttpProblem(404, 'OIDC sign-in is not configured on this deployment.', {
          detail: 'An administrator must set --oidc-issuer-url and --oidc-client-id.',
        });
      }
      return (oidc ??= new OidcSignIn(values, context.store.clock, `${values.accessUrl}${OIDC_CALLBACK_PATH}`));
    }
    if (!values.githubClientId) {
      throw new HttpProblem(404, 'GitHub sign-in is not configured on this deployment.', {
        detail: 'An administrator must set --oauth2-github-client-id and --oauth2-github-client-secret.',
      });
    }
    return (github ??= new GithubSignIn(values, `${values.accessUrl}${GITHUB_CALLBACK_PATH}`));
  };

  api.get('/users/authmethods', { schema: { response: { 200: AuthMethods } } }, async () => ({
    password: { enabled: !values.disablePasswordAuth },
    // No GitHub app is built in: GitHub sign-in works only with the operator's own OAuth app.
    github: { enabled: values.githubClientId !== '', default_provider_configured: false },
    oidc: { enabled: values.oidcIssuerUrl !== '', signInText: values.oidcSignInText, iconUrl: values.oidcIconUrl },
  }));

  const handle = async (provider: SignInProvider, query: Static<typeof CallbackQuery>, request: FastifyRequest, reply: FastifyReply) => {
    const secure = values.accessUrl.startsWith('https:');
    try {
      const flow = flowOf(provider);
      const now = context.store.clock.now();
      if (query.code === undefined && query.error === undefined && query.state === undefined) {
        // No answer from the provider yet: start the sign-in.
        const conversion = query.oidc_merge_state
          ? {
              state: query.oidc_merge_state,
              userId: verifyLoginConversion(
                context.identity,
                readCookie(request.headers.cookie, CONVERT_LOGIN_COOKIE),
                { state: query.oidc_merge_state, toType: provider },
                now,
              ),
            }
          : undefined;
        const pending = await beginSignIn(
          signInStore,
          { provider, redirect: safeRedirect(query.redirect), ...(conversion ? { conversion } : {}) },
          now,
        );
        const location = await flow.authorizationUrl(pending);
        void reply.header('set-cookie', stateCookie(pending.state, SIGN_IN_VALIDITY_MS / 1000, secure));
        return reply.code(307).header('location', location.toString()).header('cache-control', 'no-store').send();
      }
      const pending = await finishSignIn(
        signInStore,
        provider,
        { state: query.state, cookie: readCookie(request.headers.cookie, SIGN_IN_STATE_COOKIE) },
        now,
      );
      const callbackQuery = new URLSearchParams(request.url.split('?')[1] ?? '');
      const identity = await flow.identity(callbackQuery, pending);
      const { token } = await signInExternalUser(
        // This request's own store: it carries the request's audit facts for the sign-in's entry.
        context.store.as(SYSTEM_SUBJECTS.externalSignIn, signInAuditRequest(request)),
        { values, defaultOrganizationId: context.identity.defaultOrganization.id },
        identity,
        {
          allowSignups: provider === 'oidc' ? values.oidcAllowSignups : values.githubAllowSignups,
          convertUserId: pending.convertUserId,
          ...(identity.claims
            ? {
                afterAccount: async (user) => {
                  const claims = identity.claims ?? {};
                  const orgId = context.identity.defaultOrganization.id;
                  await syncAtSignIn(syncStore, syncSettings, user, claims, orgId, (fields, message) => request.log.info(fields, message));
                },
              }
            : {}),
        },
        { ipAddress: request.ip, now: context.store.clock.now() },
      );
      const cookies = [stateCookie('', 0, secure)];
      if (pending.convertUserId) cookies.push(`${CONVERT_LOGIN_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`);
      void reply.header('set-cookie', cookies);
      setSessionCookie(reply, token, secure);
      return reply.code(307).header('location', pending.redirect).header('cache-control', 'no-store').send();
    } catch (error) {
      const problem = toProblem(error);
      if (problem.status >= 500) request.log.error({ err: error, provider }, 'sign-in failed');
      void reply.header('set-cookie', stateCookie('', 0, secure)).header('cache-control', 'no-store');
      if (wantsJson(request)) return reply.code(problem.status).type('application/json; charset=utf-8').send(problem.body);
      const retry = configured(provider)
        ? signInLinks(context, safeRedirect(query.redirect)).find((link) => link.href.startsWith(callbackPath(provider)))
        : undefined;
      denyFraming(reply);
      return reply.code(problem.status).type('text/html; charset=utf-8').send(signInFailedPage(problem.body, retry));
    }
  };
  const configured = (provider: SignInProvider) => (provider === 'oidc' ? values.oidcIssuerUrl !== '' : values.githubClientId !== '');

  api.get('/users/oidc/callback', { onRequest: loginLimit, schema: { querystring: CallbackQuery } }, async (request, reply) =>
    handle('oidc', request.query, request, reply),
  );
  api.get('/users/oauth2/github/callback', { onRequest: loginLimit, schema: { querystring: CallbackQuery } }, async (request, reply) =>
    handle('github', request.query, request, reply),
  );
}

function callbackPath(provider: SignInProvider): string {
  return provider === 'oidc' ? OIDC_CALLBACK_PATH : GITHUB_CALLBACK_PATH;
}

/** The state cookie: sent back only to the callbacks, and only on top-level navigation from the provider. */
function stateCookie(state: string, maxAgeSeconds: number, secure: boolean): string {
  const attributes = ['Path=/api/v2/users/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`, ...(secure ? ['Secure'] : [])];
  return `${SIGN_IN_STATE_COOKIE}=${state}; ${attributes.join('; ')}`;
}

/** API clients that ask for JSON get the spec's error body; browsers get a page. */
function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}
