import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The networking section of `--help` and of the YAML file. */
export const NETWORKING_GROUP: OptionGroup = { name: 'Networking', yaml: 'networking', description: 'How the daemon is reached.' };

/** What the networking options resolve to; durations are milliseconds. */
export interface NetworkingValues {
  readonly httpAddress: string;
  readonly httpHeaderTimeoutMs: number;
  readonly httpBodyTimeoutMs: number;
  readonly accessUrl: string;
  readonly relayUrl: string;
  readonly wildcardAccessUrl: string;
}

/** The networking options, in `--help` order. */
export const NETWORKING_OPTIONS: readonly OptionDefinition<keyof NetworkingValues>[] = [
  {
    key: 'httpAddress',
    name: 'HTTP Address',
    flag: 'http-address',
    env: 'COVE_HTTP_ADDRESS',
    yaml: 'http_address',
    group: NETWORKING_GROUP,
    configPath: ['http_address'],
    kind: 'string',
    default: '127.0.0.1:3000',
    description: 'Address and port to listen on for HTTP; use port 0 for a random free port.',
  },
  {
    key: 'httpHeaderTimeoutMs',
    name: 'HTTP Header Timeout',
    flag: 'http-header-timeout',
    env: 'COVE_HTTP_HEADER_TIMEOUT',
    yaml: 'http_header_timeout',
    group: NETWORKING_GROUP,
    configPath: ['http_header_timeout'],
    kind: 'duration',
    default: '30s',
    description: "How long a client may take to send a request's headers before its connection is closed.",
  },
  {
    key: 'httpBodyTimeoutMs',
    name: 'HTTP Body Timeout',
    flag: 'http-body-timeout',
    env: 'COVE_HTTP_BODY_TIMEOUT',
    yaml: 'http_body_timeout',
    group: NETWORKING_GROUP,
    configPath: ['http_body_timeout'],
    kind: 'duration',
    default: '30s',
    description:
      "How long a client may take to send a request's body, once its headers are in, before it is answered 408 and its connection closed. Uploads must fit in it: at 30s, a 100 MiB template needs about 3.5 MB/s, so raise it for large templates on slow links. Answers, WebSockets, streams and requests passed on to workspace apps are not limited by it.",
  },
  {
    key: 'accessUrl',
    name: 'Access URL',
    flag: 'access-url',
    env: 'COVE_ACCESS_URL',
    yaml: 'access_url',
    group: NETWORKING_GROUP,
    configPath: ['access_url'],
    kind: 'url',
    default: '',
    description: 'The URL that users and workspace agents use to reach this daemon. Defaults to http:// plus the HTTP address.',
  },
  {
    key: 'relayUrl',
    name: 'Relay URL',
    flag: 'relay-url',
    env: 'COVE_RELAY_URL',
    yaml: 'relay_url',
    group: NETWORKING_GROUP,
    configPath: ['relay_url'],
    kind: 'url',
    default: '',
    description:
      'The URL other replicas reach this one at, to relay streams to the agents connected here. Defaults to http:// plus the address it listens on.',
  },
  {
    key: 'wildcardAccessUrl',
    name: 'Wildcard Access URL',
    flag: 'wildcard-access-url',
    env: 'COVE_WILDCARD_ACCESS_URL',
    yaml: 'wildcard_access_url',
    group: NETWORKING_GROUP,
    configPath: ['wildcard_access_url'],
    kind: 'string',
    default: '',
    description: 'Host pattern such as *.cove.example.com under which subdomain apps are served.',
  },
];
