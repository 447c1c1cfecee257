import { createHash, randomBytes } from 'node:crypto';
import { HttpProblem } from '../../lib/errors.js';
import type { ExternalAuthDevice } from '../../sdk/wire/index.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import type { PubSub } from '../../store/pubsub.js';
import { safeRedirect } from '../sign-in-state.js';
import { OAuthRefusedError, type ExternalAuthOAuth, type ExternalAuthProvider, type OAuthToken } from './external-auth-provider.js';
import { externalAuthLinkChannel, providerUnavailable } from './links.js';

/** How long a link flow may take from the redirect to the provider to the callback. */
const FLOW_LIFETIME_MS = 10 * 60_000;

/** What the link flows need besides the caller's store. */
export interface LinkFlowContext {
  readonly store: AuthorizedStore;
  readonly oauth: ExternalAuthOAuth;
  readonly events: PubSub;
  readonly accessUrl: string;
  readonly now: Date;
}

/** Where the provider sends the browser back to: the callback route of `provider`, outside `/api/v2` as in the reference. */
export function callbackUrl(accessUrl: string, provider: ExternalAuthProvider): string {
  return `${accessUrl.replace(/\/+$/, '')}/external-auth/${encodeURIComponent(provider.id)}/callback`;
}

function hashState(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}

/**
 * Where the browser goes once linked: a path on this deployment. A redirect that is anything else
 * (an absolute URL, a scheme-relative `//host`) is refused rather than rewritten, so that a link
 * crafted to send the user elsewhere fails visibly.
 */
export function linkRedirect(raw: string | undefined, provider: ExternalAuthProvider): string {
  if (raw === undefined || raw === '') return `/external-auth/${encodeURIComponent(provider.id)}?redirected=true`;
  const safe = safeRedirect(raw);
  if (safe === '/' && raw !== '/') {
    throw new HttpProblem(400, 'The redirect must be a path on this deployment.', {
      validations: [{ field: 'redirect', detail: 'must start with a single "/" and name no other host' }],
    });
  }
  return safe;
}

/**
 * Starts linking the signed-in user's account at `provider`: a fresh state and PKCE verifier kept
 * under the state's hash, bound to this user for ten minutes, and the provider's URL to send the
 * browser to.
 */
export async function startLink(
  context: LinkFlowContext,
  provider: ExternalAuthProvider,
  userId: string,
  redirect: string | undefined,
): Promise<URL> {
  const target = linkRedirect(redirect, provider);
  const state = randomBytes(32).toString('base64url');
  const codeVerifier = randomBytes(48).toString('base64url');
  await context.store.externalAuth.startFlow({
    state_hash: hashState(state),
    provider_id: provider.id,
    user_id: userId,
    code_verifier: codeVerifier,
    redirect: target,
    expires_at: new Date(context.now.getTime() + FLOW_LIFETIME_MS).toISOString(),
  });
  return context.oauth.authorizationUrl(provider, { redirectUri: callbackUrl(context.accessUrl, provider), state, codeVerifier });
}

/**
 * Finishes a link flow the provider sent the browser back from: the state must be one this same
 * user started for this provider, unused and unexpired, so that neither a state nor a code of
 * someone else's can link an account to the wrong user. Returns where to send the browser.
 */
export async function completeLink(
  context: LinkFlowContext,
  provider: ExternalAuthProvider,
  userId: string,
  input: { readonly code: string; readonly state: string | undefined },
): Promise<string> {
  const refuse = (detail: string) =>
    new HttpProblem(400, 'The link could not be completed: start it again.', { detail, validations: [{ field: 'state', detail }] });
  if (!input.state) throw refuse('The provider sent no state back.');
  const flow = await context.store.externalAuth.takeFlow(hashState(input.state), userId);
  if (!flow || flow.provider_id !== provider.id) throw refuse('The state is unknown, used already, or was given to someone else.');
  if (new Date(flow.expires_at).getTime() <= context.now.getTime()) throw refuse('The link took longer than ten minutes.');
  let token: OAuthToken;
  try {
    token = await context.oauth.exchangeCode(provider, {
      code: input.code,
      redirectUri: callbackUrl(context.accessUrl, provider),
      codeVerifier: flow.code_verifier,
    });
  } catch (error) {
    if (error instanceof OAuthRefusedError) {
      throw new HttpProblem(400, 'The provider refused the authorization code.', { detail: `${error.code}: ${error.message}` });
    }
    throw providerUnavailable(provider, error);
  }
  await saveLink(context, provider, userId, token);
  return flow.redirect;
}

/** Starts a device authorization; 400 when the provider has no device flow. */
export async function startDeviceLink(oauth: ExternalAuthOAuth, provider: ExternalAuthProvider): Promise<ExternalAuthDevice> {
  if (!provider.deviceFlow) throw new HttpProblem(400, 'Git auth device flow not supported.');
  try {
    return await oauth.startDevice(provider);
  } catch (error) {
    if (error instanceof OAuthRefusedError) {
      throw new HttpProblem(400, 'The provider refused to start a device authorization.', { detail: `${error.code}: ${error.message}` });
    }
    throw providerUnavailable(provider, error);
  }
}

/**
 * Exchanges a device code and links the account; until the user has entered the code at the
 * provider, a 400 whose detail carries the provider's `authorization_pending` (or `slow_down`).
 */
export async function completeDeviceLink(
  context: LinkFlowContext,
  provider: ExternalAuthProvider,
  userId: string,
  deviceCode: string,
): Promise<void> {
  if (!provider.deviceFlow) throw new HttpProblem(400, 'Git auth provider does not support device flow.');
  let token: OAuthToken;
  try {
    token = await context.oauth.exchangeDevice(provider, deviceCode);
  } catch (error) {
    if (error instanceof OAuthRefusedError) {
      throw new HttpProblem(400, 'Failed to exchange device code.', { detail: `${error.code}: ${error.message}` });
    }
    throw providerUnavailable(provider, error);
  }
  await saveLink(context, provider, userId, token);
}

async function saveLink(context: LinkFlowContext, provider: ExternalAuthProvider, userId: string, token: OAuthToken): Promise<void> {
  await context.store.externalAuth.save(provider.id, userId, token);
  // Agents waiting for this link (`listen`) hear of it at once, on every replica.
  await context.events.publish(externalAuthLinkChannel(userId), provider.id);
}
