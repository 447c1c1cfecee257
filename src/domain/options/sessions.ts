import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The session section of `--help` and of the YAML file. */
export const SESSIONS_GROUP: OptionGroup = { name: 'Sessions', yaml: 'sessions', description: 'Lifetimes of sessions and API tokens.' };

/** What the session options resolve to; durations are milliseconds. */
export interface SessionValues {
  readonly sessionDurationMs: number;
  readonly defaultTokenLifetimeMs: number;
  readonly maxTokenLifetimeMs: number;
  readonly maxAdminTokenLifetimeMs: number;
  readonly disableSessionExpiryRefresh: boolean;
}

/** The session options, in `--help` order. */
export const SESSION_OPTIONS: readonly OptionDefinition<keyof SessionValues>[] = [
  {
    key: 'sessionDurationMs',
    name: 'Session Duration',
    flag: 'session-duration',
    env: 'COVE_SESSION_DURATION',
    yaml: 'default_duration',
    group: SESSIONS_GROUP,
    configPath: ['session_lifetime', 'default_duration'],
    kind: 'duration',
    default: '24h',
    description: 'Lifetime of a session created by signing in with a password.',
  },
  {
    key: 'defaultTokenLifetimeMs',
    name: 'Default Token Lifetime',
    flag: 'default-token-lifetime',
    env: 'COVE_DEFAULT_TOKEN_LIFETIME',
    yaml: 'default_token_lifetime',
    group: SESSIONS_GROUP,
    configPath: ['session_lifetime', 'default_token_lifetime'],
    kind: 'duration',
    default: '168h',
    description: 'Lifetime of API tokens created without an explicit lifetime.',
  },
  {
    key: 'maxTokenLifetimeMs',
    name: 'Maximum Token Lifetime',
    flag: 'max-token-lifetime',
    env: 'COVE_MAX_TOKEN_LIFETIME',
    yaml: 'max_token_lifetime',
    group: SESSIONS_GROUP,
    configPath: ['session_lifetime', 'max_token_lifetime'],
    kind: 'duration',
    default: '876600h',
    description: 'Longest lifetime a user may request for an API token.',
  },
  {
    key: 'maxAdminTokenLifetimeMs',
    name: 'Maximum Admin Token Lifetime',
    flag: 'max-admin-token-lifetime',
    env: 'COVE_MAX_ADMIN_TOKEN_LIFETIME',
    yaml: 'max_admin_token_lifetime',
    group: SESSIONS_GROUP,
    configPath: ['session_lifetime', 'max_admin_token_lifetime'],
    kind: 'duration',
    default: '168h',
    description: 'Longest lifetime an owner may request for an API token.',
  },
  {
    key: 'disableSessionExpiryRefresh',
    name: 'Disable Session Expiry Refresh',
    flag: 'disable-session-expiry-refresh',
    env: 'COVE_DISABLE_SESSION_EXPIRY_REFRESH',
    yaml: 'disable_expiry_refresh',
    group: SESSIONS_GROUP,
    configPath: ['session_lifetime', 'disable_expiry_refresh'],
    kind: 'bool',
    default: 'false',
    description: 'Do not extend a session or token while it is in use.',
  },
];
