import type { ExternalAuthProvider } from '../external-auth/external-auth-provider.js';
import { providerRegex } from '../external-auth/match-provider.js';
import { KNOWN_TYPES, withProviderDefaults, type ExternalAuthEntry } from '../external-auth/provider-defaults.js';
import { nameRuleError } from '../../lib/name-rule.js';
import { OptionError } from './option-error.js';

/**
 * The external auth providers a deployment is configured with. They are a list of records
 * (`COVE_EXTERNAL_AUTH_0_ID`, `_1_ID`, …, or the YAML file's `externalAuthProviders`), so they are
 * read beside the single-valued options rather than declared among them.
 */
export interface ExternalAuthValues {
  /** Each provider with its type's defaults filled in; empty when none is configured. */
  readonly externalAuthProviders: readonly ExternalAuthProvider[];
}

/** The environment prefixes, in the order their providers are listed; `GITAUTH` is the older name. */
export const EXTERNAL_AUTH_ENV_PREFIXES = ['COVE_EXTERNAL_AUTH_', 'COVE_GITAUTH_'] as const;

/** The YAML document's key of the provider list (at its top level). */
export const EXTERNAL_AUTH_YAML_KEY = 'externalAuthProviders';

type TextField = { [K in keyof ExternalAuthEntry]: ExternalAuthEntry[K] extends string ? K : never }[keyof ExternalAuthEntry];
type ListField = 'scopes' | 'extraTokenKeys' | 'codeChallengeMethodsSupported';
type FlagField = 'deviceFlow' | 'noRefresh';

/** Every field: its environment suffix, its YAML key, and its kind. Lists are space-separated in the environment. */
export const EXTERNAL_AUTH_FIELDS: readonly {
  readonly env: string;
  readonly yaml: string;
  readonly field: TextField | ListField | FlagField;
  readonly kind: 'text' | 'list' | 'flag';
}[] = [
  { env: 'ID', yaml: 'id', field: 'id', kind: 'text' },
  { env: 'TYPE', yaml: 'type', field: 'type', kind: 'text' },
  { env: 'CLIENT_ID', yaml: 'client_id', field: 'clientId', kind: 'text' },
  { env: 'CLIENT_SECRET', yaml: 'client_secret', field: 'clientSecret', kind: 'text' },
  { env: 'AUTH_URL', yaml: 'auth_url', field: 'authUrl', kind: 'text' },
  { env: 'TOKEN_URL', yaml: 'token_url', field: 'tokenUrl', kind: 'text' },
  { env: 'VALIDATE_URL', yaml: 'validate_url', field: 'validateUrl', kind: 'text' },
  { env: 'REVOKE_URL', yaml: 'revoke_url', field: 'revokeUrl', kind: 'text' },
  { env: 'DEVICE_FLOW', yaml: 'device_flow', field: 'deviceFlow', kind: 'flag' },
  { env: 'DEVICE_CODE_URL', yaml: 'device_code_url', field: 'deviceCodeUrl', kind: 'text' },
  { env: 'NO_REFRESH', yaml: 'no_refresh', field: 'noRefresh', kind: 'flag' },
  { env: 'SCOPES', yaml: 'scopes', field: 'scopes', kind: 'list' },
  { env: 'EXTRA_TOKEN_KEYS', yaml: 'extra_token_keys', field: 'extraTokenKeys', kind: 'list' },
  { env: 'REGEX', yaml: 'regex', field: 'regex', kind: 'text' },
  { env: 'DISPLAY_NAME', yaml: 'display_name', field: 'displayName', kind: 'text' },
  { env: 'DISPLAY_ICON', yaml: 'display_icon', field: 'displayIcon', kind: 'text' },
  { env: 'APP_INSTALL_URL', yaml: 'app_install_url', field: 'appInstallUrl', kind: 'text' },
  { env: 'APP_INSTALLATIONS_URL', yaml: 'app_installations_url', field: 'appInstallationsUrl', kind: 'text' },
  { env: 'PKCE_METHODS', yaml: 'code_challenge_methods_supported', field: 'codeChallengeMethodsSupported', kind: 'list' },
];

/** Types whose token endpoint cannot do without the client secret. */
const NEEDS_SECRET = new Set(['azure-devops', 'azure-devops-entra', 'jfrog', 'slack']);

/** An entry as read, with how to name each of its fields in an error. */
interface ReadEntry {
  readonly entry: ExternalAuthEntry;
  readonly origin: (field: string) => string;
}

function emptyEntry(): ExternalAuthEntry {
  return {
    id: '',
    type: '',
    clientId: '',
    clientSecret: '',
    authUrl: '',
    tokenUrl: '',
    validateUrl: '',
    revokeUrl: '',
    deviceFlow: false,
    deviceCodeUrl: '',
    noRefresh: false,
    scopes: [],
    extraTokenKeys: [],
    regex: '',
    displayName: '',
    displayIcon: '',
    appInstallUrl: '',
    appInstallationsUrl: '',
    codeChallengeMethodsSupported: undefined,
  };
}

/** Go's strconv.ParseBool, which the reference reads these flags with. */
function parseFlag(text: string, origin: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false;
  throw new OptionError(`${origin}: "${text}" is not a boolean (true or false)`);
}

function splitList(text: string): string[] {
  return text.split(' ').filter((item) => item !== '');
}

/** Providers from `<prefix><n>_<FIELD>` variables; n counts from 0 without gaps, in any order of the variables. */
function readEnv(env: Readonly<Record<string, string | undefined>>, prefix: string): ReadEntry[] {
  const byIndex = new Map<number, ExternalAuthEntry>();
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(prefix) || value === undefined) continue;
    const match = /^(\d+)_(.+)$/.exec(name.slice(prefix.length));
    if (!match) throw new OptionError(`${name}: not of the form ${prefix}<number>_<FIELD>`);
    const index = Number(match[1]);
    const field = EXTERNAL_AUTH_FIELDS.find((candidate) => candidate.env === match[2]);
    // The reference ignores fields it does not know (such as its MCP settings); so does this.
    if (!field) continue;
    const entry = byIndex.get(index) ?? emptyEntry();
    byIndex.set(index, entry);
    assign(entry, field, value, name);
  }
  const entries: ReadEntry[] = [];
  for (let index = 0; index < byIndex.size; index++) {
    const entry = byIndex.get(index);
    if (!entry) {
      const skipped = [...byIndex.keys()].filter((n) => n > index).sort((a, b) => a - b)[0];
      throw new OptionError(`${prefix}${skipped}_*: provider number ${index} is missing (${prefix}<n>_ numbers count from 0 without gaps)`);
    }
    entries.push({ entry, origin: (field) => `${prefix}${index}_${field}` });
  }
  return entries;
}

function assign(entry: ExternalAuthEntry, field: (typeof EXTERNAL_AUTH_FIELDS)[number], value: unknown, origin: string): void {
  const target = entry as unknown as Record<string, unknown>;
  if (field.kind === 'flag') {
    target[field.field] = typeof value === 'boolean' ? value : parseFlag(String(value), origin);
  } else if (field.kind === 'list') {
    if (Array.isArray(value)) {
      if (!value.every((item) => typeof item === 'string')) throw new OptionError(`${origin}: must be a list of strings`);
      target[field.field] = value.filter((item) => item !== '');
    } else if (typeof value === 'string') target[field.field] = splitList(value);
    else throw new OptionError(`${origin}: must be a list of strings`);
  } else {
    if (typeof value !== 'string' && typeof value !== 'number') throw new OptionError(`${origin}: must be a string`);
    target[field.field] = String(value);
  }
}

/** Providers from the YAML document's top-level `externalAuthProviders` list, with the reference's keys. */
function readYaml(document: unknown): ReadEntry[] {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return [];
  const list = (document as Record<string, unknown>)[EXTERNAL_AUTH_YAML_KEY];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new OptionError(`config file: "${EXTERNAL_AUTH_YAML_KEY}" must be a list`);
  return list.map((item: unknown, index) => {
    const at = `${EXTERNAL_AUTH_YAML_KEY}[${index}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new OptionError(`config file: ${at} must be a mapping`);
    const entry = emptyEntry();
    for (const [key, value] of Object.entries(item as Record<string, unknown>)) {
      const field = EXTERNAL_AUTH_FIELDS.find((candidate) => candidate.yaml === key);
      if (!field || value === null || value === undefined) continue;
      assign(entry, field, value, `config file: ${at}.${key}`);
    }
    return {
      entry,
      origin: (envField: string) =>
        `config file: ${at}.${EXTERNAL_AUTH_FIELDS.find((candidate) => candidate.env === envField)?.yaml ?? envField.toLowerCase()}`,
    };
  });
}

function checkUrl(value: string, origin: string): void {
  if (value === '') return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OptionError(`${origin}: "${value}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OptionError(`${origin}: "${value}" is not an http(s) URL`);
}

/** The provider an entry describes, with its type's defaults, or an OptionError naming the setting at fault. */
function toProvider({ entry: given, origin }: ReadEntry): ExternalAuthProvider {
  if (given.type === '')
    throw new OptionError(`${origin('TYPE')} is required (github, gitlab, …, or any name for a generic OAuth2 provider)`);
  const entry = withProviderDefaults(given);
  const idError = nameRuleError(entry.id);
  if (idError) throw new OptionError(`${origin(given.id !== '' ? 'ID' : 'TYPE')}: the id "${entry.id}" ${idError}`);
  if (entry.clientId === '') throw new OptionError(`${origin('CLIENT_ID')} is required for the "${entry.id}" external auth provider`);
  if (entry.clientSecret === '' && NEEDS_SECRET.has(entry.type))
    throw new OptionError(`${origin('CLIENT_SECRET')} is required for the "${entry.id}" external auth provider of type ${entry.type}`);
  const generic = !(KNOWN_TYPES as readonly string[]).includes(entry.type);
  if (entry.tokenUrl === '')
    throw new OptionError(
      generic
        ? `${origin('TOKEN_URL')} is required for the "${entry.id}" external auth provider (type ${entry.type} is a generic OAuth2 provider)`
        : `${origin('AUTH_URL')} is required for the "${entry.id}" external auth provider (type ${entry.type} finds its other URLs from it)`,
    );
  if (entry.authUrl === '' && !entry.deviceFlow)
    throw new OptionError(
      `${origin('AUTH_URL')} is required for the "${entry.id}" external auth provider (type ${entry.type} is a generic OAuth2 provider)`,
    );
  if (entry.deviceFlow && entry.deviceCodeUrl === '')
    throw new OptionError(
      `${origin('DEVICE_CODE_URL')} is required when ${origin('DEVICE_FLOW')} is true (type ${entry.type} has no default)`,
    );
  for (const field of [
    'AUTH_URL',
    'TOKEN_URL',
    'VALIDATE_URL',
    'REVOKE_URL',
    'DEVICE_CODE_URL',
    'APP_INSTALL_URL',
    'APP_INSTALLATIONS_URL',
  ]) {
    const key = EXTERNAL_AUTH_FIELDS.find((candidate) => candidate.env === field)?.field as TextField;
    checkUrl(entry[key], origin(field));
  }
  for (const method of entry.codeChallengeMethodsSupported ?? [])
    if (method !== 'S256' && method !== 'none')
      throw new OptionError(`${origin('PKCE_METHODS')}: "${method}" is not a PKCE method (S256 or none)`);
  let regex: RegExp;
  try {
    regex = providerRegex(entry.regex);
  } catch (error) {
    throw new OptionError(`${origin('REGEX')}: "${entry.regex}" is not a valid regular expression (${(error as Error).message})`);
  }
  return {
    id: entry.id,
    type: entry.type,
    clientId: entry.clientId,
    clientSecret: entry.clientSecret,
    authUrl: entry.authUrl,
    tokenUrl: entry.tokenUrl,
    validateUrl: entry.validateUrl,
    revokeUrl: entry.revokeUrl,
    deviceFlow: entry.deviceFlow,
    deviceCodeUrl: entry.deviceCodeUrl,
    noRefresh: entry.noRefresh,
    scopes: entry.scopes,
    extraTokenKeys: entry.extraTokenKeys,
    regex,
    displayName: entry.displayName,
    displayIcon: entry.displayIcon,
    appInstallUrl: entry.appInstallUrl,
    appInstallationsUrl: entry.appInstallationsUrl,
    codeChallengeMethodsSupported: entry.codeChallengeMethodsSupported ?? [],
  };
}

/**
 * Reads the providers from the YAML document and the environment. As in the reference, the
 * environment's providers are added after the file's (`COVE_EXTERNAL_AUTH_*`, then the older
 * `COVE_GITAUTH_*`), and an id given twice, wherever, is refused.
 */
export function readExternalAuthProviders(input: {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly yaml?: unknown;
}): readonly ExternalAuthProvider[] {
  const entries = [...readYaml(input.yaml), ...EXTERNAL_AUTH_ENV_PREFIXES.flatMap((prefix) => readEnv(input.env ?? {}, prefix))];
  const providers: ExternalAuthProvider[] = [];
  const seen = new Map<string, string>();
  for (const read of entries) {
    const provider = toProvider(read);
    const where = read.origin(read.entry.id !== '' ? 'ID' : 'TYPE');
    const earlier = seen.get(provider.id);
    if (earlier !== undefined)
      throw new OptionError(
        `${where}: the external auth provider id "${provider.id}" is already used by ${earlier}; give each provider a unique id${read.entry.id === '' ? ' (it defaults to the type)' : ''}`,
      );
    seen.set(provider.id, where);
    providers.push(provider);
  }
  return providers;
}
