import type { ExternalAuthProvider } from './external-auth-provider.js';

/** The source of the regex of a provider configured without one: it matches nothing, so such a provider is found by id only. */
export const NO_REGEX_SOURCE = '(?!)';

/**
 * A provider's configured regex as a RegExp. The reference writes them in Go's syntax, which
 * agrees with JavaScript's except for a leading `(?i)` flag group, turned into the `i` flag here.
 * An empty regex matches nothing. Throws SyntaxError for an invalid one.
 */
export function providerRegex(source: string): RegExp {
  if (source === '') return new RegExp(NO_REGEX_SOURCE);
  const insensitive = /^\(\?i\)/.exec(source);
  const regex = insensitive ? new RegExp(source.slice(insensitive[0].length), 'i') : new RegExp(source);
  configuredText.set(regex, source);
  return regex;
}

/** The text each regex was configured with: RegExp's own `source` escapes slashes, and would show a regex otherwise than written. */
const configuredText = new WeakMap<RegExp, string>();

/** A provider's regex as configured; empty when it has none. */
export function regexText(provider: ExternalAuthProvider): string {
  return configuredText.get(provider.regex) ?? (hasRegex(provider) ? provider.regex.source : '');
}

/** Whether the provider was configured with a regex (else it is found by id only). */
export function hasRegex(provider: ExternalAuthProvider): boolean {
  return provider.regex.source !== NO_REGEX_SOURCE;
}

/**
 * The forms of a git remote URL a provider's regex is tried on: the URL as given, then, for SSH
 * remotes (`git@host:owner/repo`, `ssh://git@host[:port]/owner/repo`) and URLs with credentials,
 * the https URL of the same repository, so a regex written for https URLs covers them.
 */
export function remoteUrlForms(remote: string): string[] {
  const forms = [remote];
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/\/)(.*)$/.exec(remote);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(remote)) forms.push(`https://${scp[1]}/${scp[2]?.replace(/^\/+/, '')}`);
  else {
    try {
      const url = new URL(remote);
      if (url.protocol === 'ssh:' || url.protocol === 'git+ssh:' || url.protocol === 'git:')
        forms.push(`https://${url.hostname}${url.pathname}`);
      else if ((url.protocol === 'https:' || url.protocol === 'http:') && (url.username !== '' || url.password !== '')) {
        url.username = '';
        url.password = '';
        forms.push(url.toString());
      }
    } catch {
      // Not a URL: only the text as given is tried.
    }
  }
  return forms;
}

/**
 * The provider a request names: by `id`, or the first whose regex matches the git remote URL
 * `match` (in any of its forms). Undefined when none does.
 */
export function matchProvider(
  providers: readonly ExternalAuthProvider[],
  query: { readonly id?: string; readonly match?: string },
): ExternalAuthProvider | undefined {
  if (query.id !== undefined && query.id !== '') return providers.find((provider) => provider.id === query.id);
  if (query.match === undefined || query.match === '') return undefined;
  const forms = remoteUrlForms(query.match);
  return providers.find((provider) => hasRegex(provider) && forms.some((form) => provider.regex.test(form)));
}
