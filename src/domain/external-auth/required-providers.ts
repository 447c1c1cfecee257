import { HttpProblem } from '../../lib/errors.js';
import type { TemplateVersionExternalAuth } from '../../sdk/wire/index.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import { parseJson } from '../../store/json-column.js';
import type { ExternalAuthOAuth, ExternalAuthProvider } from './external-auth-provider.js';
import { freshToken, linkPageUrl, linkWorks } from './links.js';

/** A provider a template version names in its `external_auth`. */
export interface RequiredProvider {
  readonly id: string;
  readonly optional: boolean;
}

/** What the external auth rules need of the deployment. */
export interface ExternalAuthSettings {
  readonly providers: readonly ExternalAuthProvider[];
  readonly accessUrl: string;
}

/** The providers a version's `external_auth` column names. */
export function requiredProviders(column: string): RequiredProvider[] {
  return parseJson<unknown[]>(column, [])
    .filter((entry): entry is { id: string; optional?: unknown } => {
      return typeof entry === 'object' && entry !== null && typeof (entry as { id?: unknown }).id === 'string';
    })
    .map((entry) => ({ id: entry.id, optional: entry.optional === true }));
}

/**
 * `GET /templateversions/{id}/external-auth`: each provider the version names, and whether the
 * caller's link to it works now (its token refreshed first when it is about to expire). A provider
 * the deployment does not configure is told by its id, and never authenticated.
 */
export async function versionExternalAuth(
  store: AuthorizedStore,
  oauth: ExternalAuthOAuth,
  settings: ExternalAuthSettings,
  userId: string,
  column: string,
  now: () => Date,
): Promise<TemplateVersionExternalAuth[]> {
  const answers: TemplateVersionExternalAuth[] = [];
  for (const required of requiredProviders(column)) {
    const provider = settings.providers.find((candidate) => candidate.id === required.id);
    let authenticated = false;
    if (provider) {
      try {
        authenticated = (await freshToken(store, oauth, provider, userId, { now, validate: 'never' })).kind === 'token';
      } catch {
        // A provider that does not answer cannot vouch for the token: the user is offered the link.
        authenticated = false;
      }
    }
    answers.push({
      id: required.id,
      type: provider?.type ?? required.id,
      display_name: provider?.displayName ?? required.id,
      display_icon: provider?.displayIcon ?? '',
      authenticate_url: linkPageUrl(settings.accessUrl, required.id),
      authenticated,
      optional: required.optional,
    });
  }
  return answers;
}

/**
 * Refuses to create a workspace for `ownerId` from a version that requires a configured provider
 * (not `optional`) the owner has no working link to: the 400 names each provider and the page to
 * link it at. Providers the deployment does not configure do not block: nobody could link them.
 */
export async function refuseUnlinkedProviders(
  store: AuthorizedStore,
  settings: ExternalAuthSettings,
  ownerId: string,
  column: string,
  now: Date,
): Promise<void> {
  const needed = requiredProviders(column)
    .filter((required) => !required.optional)
    .map((required) => settings.providers.find((provider) => provider.id === required.id))
    .filter((provider): provider is ExternalAuthProvider => provider !== undefined);
  if (needed.length === 0) return;
  const statuses = await store.externalAuth.statuses(ownerId);
  const missing = needed.filter((provider) => {
    const status = statuses.find((candidate) => candidate.providerId === provider.id);
    return !status || !linkWorks(status, provider, now);
  });
  if (missing.length === 0) return;
  const names = missing.map((provider) => provider.displayName || provider.id).join(', ');
  throw new HttpProblem(400, `Link your ${names} account${missing.length > 1 ? 's' : ''} before creating this workspace.`, {
    detail: 'The template requires these external auth providers; link each at the page named, then create the workspace again.',
    validations: missing.map((provider) => ({
      field: 'external_auth',
      detail: `${provider.displayName || provider.id} (${provider.id}) is not linked: link it at ${linkPageUrl(settings.accessUrl, provider.id)}`,
    })),
  });
}
