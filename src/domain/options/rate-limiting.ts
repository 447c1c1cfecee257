import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The rate limit section of `--help` and of the YAML file. */
export const RATE_LIMITING_GROUP: OptionGroup = {
  name: 'Rate Limiting',
  yaml: 'rate_limit',
  description: 'Per-user and per-IP request limits.',
};

/** What the rate limit options resolve to. */
export interface RateLimitValues {
  readonly rateLimitApi: number;
  readonly rateLimitDisableAll: boolean;
}

/** The rate limit options, in `--help` order. */
export const RATE_LIMIT_OPTIONS: readonly OptionDefinition<keyof RateLimitValues>[] = [
  {
    key: 'rateLimitApi',
    name: 'API Rate Limit',
    flag: 'rate-limit-api',
    env: 'COVE_RATE_LIMIT_API',
    yaml: 'api',
    group: RATE_LIMITING_GROUP,
    configPath: ['rate_limit', 'api'],
    kind: 'int',
    default: '512',
    description: 'Requests per minute each user (or IP address, when anonymous) may make to one API path; 0 or less disables the limit.',
  },
  {
    key: 'rateLimitDisableAll',
    name: 'Disable All Rate Limits',
    flag: 'dangerous-disable-rate-limits',
    env: 'COVE_DANGEROUS_DISABLE_RATE_LIMITS',
    yaml: 'disable_all',
    group: RATE_LIMITING_GROUP,
    configPath: ['rate_limit', 'disable_all'],
    kind: 'bool',
    default: 'false',
    hidden: true,
    description: 'Disables every rate limit, including those on sign-in. Only for load tests.',
  },
];
