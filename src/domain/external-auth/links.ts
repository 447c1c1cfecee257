import { HttpProblem } from '../../lib/errors.js';
import type { ExternalAuthUser } from '../../sdk/wire/index.js';
import type { AuthorizedStore, ExternalAuthLinkRecord, ExternalAuthLinkStatus, FreshenOutcome } from '../../store/authorized-store.js';
import { OAuthRefusedError, type ExternalAuthOAuth, type ExternalAuthProvider } from './external-auth-provider.js';

/** A token this close to its expiry is refreshed before it is handed out: git may take a while with it. */
export const REFRESH_AHEAD_MS = 60_000;

/** How often a token handed to an agent is checked at the provider's validate URL, at most. */
const VALIDATE_EVERY_MS = 60_000;

/** Bound on the stored reason a link must be made again: a provider's error text can be long. */
const MAX_REASON_LENGTH = 400;

/** The page of the dashboard where a user links (or links again) provider `id`. */
export function linkPageUrl(accessUrl: string, providerId: string): string {
  return `${accessUrl.replace(/\/+$/, '')}/external-auth/${encodeURIComponent(providerId)}`;
}

/** The configured provider of `id`, or a 404 naming it. */
export function providerById(providers: readonly ExternalAuthProvider[], id: string): ExternalAuthProvider {
  const provider = providers.find((candidate) => candidate.id === id);
  if (!provider) {
    throw new HttpProblem(404, `No external auth provider with id "${id}" is configured.`, {
      detail: 'The deployment configures its providers with COVE_EXTERNAL_AUTH_<n>_ID and the settings beside it.',
    });
  }
  return provider;
}

/** The reason stored on a link that must be made again. */
export function relinkReason(why: string): string {
  const reason = `re-link needed: ${why}`;
  return reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH - 1)}…` : reason;
}

/**
 * Whether a link works as the database tells it, without asking the provider: nothing marked it
 * for re-linking, and its token is either current or can be refreshed.
 */
export function linkWorks(
  link: Pick<ExternalAuthLinkStatus, 'validateError' | 'expiry' | 'hasRefreshToken'>,
  provider: ExternalAuthProvider | undefined,
  now: Date,
): boolean {
  if (link.validateError !== '') return false;
  if (link.expiry === null || link.expiry.getTime() > now.getTime()) return true;
  return link.hasRefreshToken && provider !== undefined && !provider.noRefresh;
}

/** The answer of the provider being unreachable or failing: not the user's link's fault, so no re-link. */
export function providerUnavailable(provider: ExternalAuthProvider, error: unknown): HttpProblem {
  return new HttpProblem(502, `The external auth provider "${provider.id}" could not be reached.`, {
    detail: error instanceof Error ? error.message : String(error),
  });
}

/** What asking for a user's token of one provider came to. */
export type FreshToken =
  | { readonly kind: 'token'; readonly link: ExternalAuthLinkRecord; readonly user: ExternalAuthUser | null }
  | { readonly kind: 'relink'; readonly reason: string }
  | { readonly kind: 'unlinked' };

/** When each link's current token was last found valid: the agent's asks check it at most once a minute. */
const lastValidated = new Map<string, { readonly accessToken: string; readonly at: number }>();

/**
 * A user's token of `provider` that works now: refreshed first when it is within a minute of its
 * expiry (one refresh at a time per link, on every replica: see ExternalAuthStore.freshen), and
 * checked at the provider's validate URL (`validate: 'always'`, or `'recently'` to skip a token found
 * valid less than a minute ago). A refresh or a validation the provider refuses marks the link for
 * re-linking; a provider that does not answer throws a 502 and leaves the link as it is.
 */
export async function freshToken(
  store: AuthorizedStore,
  oauth: ExternalAuthOAuth,
  provider: ExternalAuthProvider,
  userId: string,
  options: { readonly now: () => Date; readonly validate: 'always' | 'recently' | 'never' },
): Promise<FreshToken> {
  let user: ExternalAuthUser | null = null;
  const key = `${provider.id}\u0000${userId}`;
  const decide = async (link: ExternalAuthLinkRecord): Promise<FreshenOutcome> => {
    if (link.validateError !== '') return { kind: 'keep' };
    let outcome: FreshenOutcome = { kind: 'keep' };
    let accessToken = link.accessToken;
    const now = options.now().getTime();
    if (link.expiry !== null && link.expiry.getTime() - now < REFRESH_AHEAD_MS) {
      if (provider.noRefresh || link.refreshToken === '') {
        // Expired for good: nothing to store, linkWorks already says so from the row.
        if (link.expiry.getTime() <= now) {
          return { kind: 'relink', reason: relinkReason('the token expired and this provider does not refresh tokens') };
        }
      } else {
        try {
          const token = await oauth.refresh(provider, link.refreshToken);
          // Providers that do not rotate refresh tokens answer without one: the old one still holds.
          const tokens = { ...token, refreshToken: token.refreshToken || link.refreshToken };
          outcome = { kind: 'tokens', tokens };
          accessToken = tokens.accessToken;
        } catch (error) {
          if (error instanceof OAuthRefusedError) {
            return { kind: 'relink', reason: relinkReason(`the provider refused to refresh the token (${error.code}: ${error.message})`) };
          }
          throw providerUnavailable(provider, error);
        }
      }
    }
    if (provider.validateUrl !== '' && options.validate !== 'never') {
      const seen = lastValidated.get(key);
      const recent = seen !== undefined && seen.accessToken === accessToken && now - seen.at < VALIDATE_EVERY_MS;
      if (options.validate === 'always' || !recent) {
        let validation;
        try {
          validation = await oauth.validate(provider, accessToken);
        } catch (error) {
          throw providerUnavailable(provider, error);
        }
        if (!validation.valid) {
          lastValidated.delete(key);
          return { kind: 'relink', reason: relinkReason('the provider no longer accepts the token') };
        }
        user = validation.user;
        lastValidated.set(key, { accessToken, at: now });
      }
    }
    return outcome;
  };
  const link = await store.externalAuth.freshen(provider.id, userId, decide);
  if (!link) return { kind: 'unlinked' };
  if (link.validateError !== '') return { kind: 'relink', reason: link.validateError };
  if (link.expiry !== null && link.expiry.getTime() <= options.now().getTime()) {
    return { kind: 'relink', reason: relinkReason('the token expired and this provider does not refresh tokens') };
  }
  return { kind: 'token', link, user };
}

/** The pubsub channel told each time one of a user's links is made or changed (payload: the provider id). */
export function externalAuthLinkChannel(userId: string): string {
  return `external-auth-link:${userId}`;
}
