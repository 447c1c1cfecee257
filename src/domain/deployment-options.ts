import { parseDuration } from '../lib/duration.js';
import { decodeTokenKey, tokenKeyDigest } from '../store/aes-token-cipher.js';
import { parseSupportLinks } from './appearance.js';
import { idpSyncSettings } from './idp-sync.js';
import { readExternalAuthProviders } from './options/external-auth.js';
import { checkNotificationOptions } from './options/notifications.js';
import { OptionError } from './options/option-error.js';
import type { OptionDefinition, ValueSource } from './options/option-types.js';
import { OPTION_DEFINITIONS, type DeploymentValues } from './options/registry.js';
import { TrustedProxies } from './trusted-proxies.js';
import { checkTlsOptions } from './options/tls-checks.js';
import { checkQuietHoursOptions } from './options/quiet-hours.js';

/**
 * Resolves the server settings declared in options/: flags over environment over YAML over
 * defaults, each value parsed and checked. It also re-exports what its importers use of options/,
 * so they keep one place to import the settings from.
 *
 * The combination checks stay here because test/unit/deployment-options-read.test.ts skips this
 * file when it looks for the code that reads each option: checks that only refuse bad settings do
 * not count as reading them.
 */

export { defaultDataDir } from './options/default-data-dir.js';
export { defaultReleaseDir } from './options/default-release-dir.js';
export { describeDefault } from './options/describe-default.js';
export { OptionError } from './options/option-error.js';
export type { OptionDefinition, OptionGroup, ValueSource } from './options/option-types.js';
export { OPTION_DEFINITIONS, type DeploymentValues } from './options/registry.js';
export { isUrlSetting, wireValue } from './options/wire-value.js';

/** What one source says, as raw text, keyed by option key. */
export type RawValues = Partial<Record<keyof DeploymentValues, string>>;

/** Resolved settings and where each came from. */
export interface ResolvedOptions {
  readonly values: DeploymentValues;
  readonly sources: Readonly<Record<keyof DeploymentValues, ValueSource>>;
}

/**
 * Combines the sources, flags over environment over YAML over defaults, and checks every value.
 * Throws OptionError naming the flag, variable or key at fault.
 */
export function resolveOptions(input: {
  readonly flags?: RawValues;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly yaml?: unknown;
}): ResolvedOptions {
  const values: Record<string, unknown> = {};
  const sources: Record<string, ValueSource> = {};
  const yamlValues = readYamlValues(input.yaml);
  for (const option of OPTION_DEFINITIONS) {
    const fromFlag = input.flags?.[option.key];
    const fromEnv = input.env?.[option.env];
    const fromYaml = yamlValues[option.key];
    const [source, text, origin]: [ValueSource, string, string] =
      fromFlag !== undefined
        ? ['flag', fromFlag, `--${option.flag}`]
        : fromEnv !== undefined && fromEnv !== ''
          ? ['env', fromEnv, option.env]
          : fromYaml !== undefined
            ? ['yaml', fromYaml, `${option.group.yaml}.${option.yaml}`]
            : ['default', option.default, `the default of --${option.flag}`];
    values[option.key] = parseValue(option, text, origin);
    sources[option.key] = source;
  }
  if (values['accessUrl'] === '') {
    values['accessUrl'] =
      values['tlsEnable'] === true ? `https://${String(values['tlsAddress'])}` : `http://${String(values['httpAddress'])}`;
  }
  values['externalAuthProviders'] = readExternalAuthProviders({ env: input.env, yaml: input.yaml });
  checkCombinations(values as unknown as DeploymentValues);
  return {
    values: values as unknown as DeploymentValues,
    sources: sources as Record<keyof DeploymentValues, ValueSource>,
  };
}

/** Settings that are fine one by one but would not work together: refused at start, not at the first sign-in. */
function checkCombinations(values: DeploymentValues): void {
  if (values.githubClientId !== '' || values.githubClientSecret !== '') {
    if (values.githubClientId === '' || values.githubClientSecret === '') {
      throw new OptionError('GitHub sign-in needs both --oauth2-github-client-id and --oauth2-github-client-secret');
    }
    if (values.githubAllowEveryone && values.githubAllowedOrgs.length > 0) {
      throw new OptionError('--oauth2-github-allow-everyone and --oauth2-github-allowed-orgs cannot be used together');
    }
    if (values.githubAllowEveryone && values.githubAllowedTeams.length > 0) {
      throw new OptionError('--oauth2-github-allow-everyone and --oauth2-github-allowed-teams cannot be used together');
    }
    if (!values.githubAllowEveryone && values.githubAllowedOrgs.length === 0) {
      throw new OptionError(
        'GitHub sign-in needs --oauth2-github-allowed-orgs (at least one organization) or --oauth2-github-allow-everyone',
      );
    }
  }
  for (const team of values.githubAllowedTeams) {
    if (!/^[^/\s]+\/[^/\s]+$/.test(team)) {
      throw new OptionError(`--oauth2-github-allowed-teams: "${team}" is not of the form organization/team-slug`);
    }
  }
  if (values.oidcIssuerUrl !== '' && values.oidcClientId === '') {
    throw new OptionError('OIDC sign-in needs --oidc-client-id as well as --oidc-issuer-url');
  }
  if (values.oidcClientId !== '' && values.oidcIssuerUrl === '') {
    throw new OptionError('OIDC sign-in needs --oidc-issuer-url as well as --oidc-client-id');
  }
  if (values.updateCheck && values.updateCheckUrl === '') {
    throw new OptionError('--update-check needs --update-check-url: the release feed to ask');
  }
  checkTokenEncryptionKeys(values.externalTokenEncryptionKeys);
  checkNotificationOptions(values);
  TrustedProxies.fromOptions(values);
  checkTlsOptions(values);
  checkQuietHoursOptions(values);
  try {
    idpSyncSettings(values);
  } catch (error) {
    throw new OptionError((error as Error).message);
  }
  try {
    parseSupportLinks(values);
  } catch (error) {
    throw new OptionError(`--support-links: ${(error as Error).message}`);
  }
}

/** Each key must be base64 of 32 bytes, and given once: a mistyped key must not start a deployment that cannot read its tokens. */
function checkTokenEncryptionKeys(keys: readonly string[]): void {
  const where = '--external-token-encryption-keys (COVE_EXTERNAL_TOKEN_ENCRYPTION_KEYS)';
  const seen = new Map<string, number>();
  keys.forEach((text, index) => {
    let digest: string;
    try {
      digest = tokenKeyDigest(decodeTokenKey(text, `key ${index + 1}`));
    } catch (error) {
      throw new OptionError(`${where}: ${(error as Error).message}`);
    }
    const earlier = seen.get(digest);
    if (earlier !== undefined) throw new OptionError(`${where}: key ${index + 1} is the same as key ${earlier + 1}`);
    seen.set(digest, index);
  });
}

function parseValue(option: OptionDefinition, text: string, origin: string): unknown {
  switch (option.kind) {
    case 'string':
      return text;
    case 'url': {
      if (text === '') return '';
      try {
        const url = new URL(text);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
        return url.toString().replace(/\/$/, '');
      } catch {
        throw new OptionError(`${origin}: "${text}" is not an http or https URL`);
      }
    }
    case 'bool': {
      const lowered = text.trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(lowered)) return true;
      if (['false', '0', 'no', 'off', ''].includes(lowered)) return false;
      throw new OptionError(`${origin}: "${text}" is not a boolean (use true or false)`);
    }
    case 'int': {
      if (!/^-?\d+$/.test(text.trim())) throw new OptionError(`${origin}: "${text}" is not an integer`);
      return Number(text.trim());
    }
    case 'duration': {
      const ms = parseDuration(text);
      if (ms === undefined) throw new OptionError(`${origin}: "${text}" is not a duration (for example 24h, 90m or 30s)`);
      return ms;
    }
    case 'string-array':
      return text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
  }
}

function readYamlValues(document: unknown): RawValues {
  if (document === undefined || document === null) return {};
  if (typeof document !== 'object' || Array.isArray(document)) throw new OptionError('the config file must hold a YAML mapping');
  const raw: RawValues = {};
  const root = document as Record<string, unknown>;
  for (const option of OPTION_DEFINITIONS) {
    if (option.yaml === '') continue;
    const section = root[option.group.yaml];
    if (section === undefined || section === null) continue;
    if (typeof section !== 'object' || Array.isArray(section)) {
      throw new OptionError(`config file: "${option.group.yaml}" must be a mapping`);
    }
    const value = (section as Record<string, unknown>)[option.yaml];
    if (value === undefined || value === null) continue;
    // A mapping (such as --oidc-group-mapping) may be written as YAML; it is JSON on the command line.
    raw[option.key] = Array.isArray(value)
      ? value.map(String).join(',')
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  }
  return raw;
}
