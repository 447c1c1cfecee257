import type { ExternalAuthProvider } from '../../domain/external-auth/external-auth-provider.js';
import { linkWorks } from '../../domain/external-auth/links.js';
import type { ExternalAuthLink, ExternalAuthLinkProvider } from '../../sdk/wire/index.js';
import type { ExternalAuthLinkRecord } from '../../store/authorized-store.js';

/** The zero time the reference's clients read as "no expiry". */
const NO_EXPIRY = '0001-01-01T00:00:00Z';

/** A configured provider as users see it: no client id, secret or URLs. */
export function toWireExternalAuthProvider(provider: ExternalAuthProvider): ExternalAuthLinkProvider {
  return {
    id: provider.id,
    type: provider.type,
    device: provider.deviceFlow,
    display_name: provider.displayName,
    display_icon: provider.displayIcon,
    allow_refresh: !provider.noRefresh,
    allow_validate: provider.validateUrl !== '',
    supports_revocation: provider.revokeUrl !== '',
    code_challenge_methods_supported: [...provider.codeChallengeMethodsSupported],
  };
}

/**
 * One of the caller's links, told from the database and the settings: `authenticated` false with
 * `validate_error` set when it must be made again (an expired token that cannot be refreshed, a
 * refresh the provider refused, a provider no longer configured).
 */
export function toWireExternalAuthLink(
  link: ExternalAuthLinkRecord,
  provider: ExternalAuthProvider | undefined,
  now: Date,
): ExternalAuthLink {
  const works = provider !== undefined && linkWorks({ ...link, hasRefreshToken: link.refreshToken !== '' }, provider, now);
  let validateError = link.validateError;
  if (!works && validateError === '') {
    validateError = provider
      ? 're-link needed: the token expired and cannot be refreshed'
      : 'the provider of this link is no longer configured';
  }
  return {
    provider_id: link.providerId,
    created_at: link.createdAt,
    updated_at: link.updatedAt,
    has_refresh_token: link.refreshToken !== '',
    expires: link.expiry ? link.expiry.toISOString() : NO_EXPIRY,
    authenticated: works,
    validate_error: validateError,
  };
}
