import { NETWORKING_GROUP } from './networking.js';
import type { OptionDefinition } from './option-types.js';

/** What the reverse-proxy options resolve to: which headers name the client, and from which peers they are believed. */
export interface ProxyValues {
  readonly proxyTrustedHeaders: readonly string[];
  readonly proxyTrustedOrigins: readonly string[];
}

/**
 * The reverse-proxy options, part of the networking section. They come after the networking
 * options that existed before them (see the registry on why groups are not regrouped).
 */
export const PROXY_OPTIONS: readonly OptionDefinition<keyof ProxyValues>[] = [
  {
    key: 'proxyTrustedHeaders',
    name: 'Proxy Trusted Headers',
    flag: 'proxy-trusted-headers',
    env: 'COVE_PROXY_TRUSTED_HEADERS',
    yaml: 'proxy_trusted_headers',
    group: NETWORKING_GROUP,
    configPath: ['proxy_trusted_headers'],
    kind: 'string-array',
    default: '',
    description:
      'Headers that name the client of a request passed on by a reverse proxy, tried in this order, e.g. X-Forwarded-For, True-Client-IP, X-Real-IP, CF-Connecting-IP. Believed only from --proxy-trusted-origins.',
  },
  {
    key: 'proxyTrustedOrigins',
    name: 'Proxy Trusted Origins',
    flag: 'proxy-trusted-origins',
    env: 'COVE_PROXY_TRUSTED_ORIGINS',
    yaml: 'proxy_trusted_origins',
    group: NETWORKING_GROUP,
    configPath: ['proxy_trusted_origins'],
    kind: 'string-array',
    default: '',
    description:
      'Networks (CIDRs, e.g. 192.168.1.0/24) of the reverse proxies whose --proxy-trusted-headers are believed; from any other peer they are ignored.',
  },
];
