import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The introspection section of `--help` and of the YAML file. */
export const INTROSPECTION_GROUP: OptionGroup = {
  name: 'Introspection',
  yaml: 'introspection',
  description: 'Logs and API documentation.',
};

/** What the introspection options resolve to. */
export interface IntrospectionValues {
  readonly swaggerEnable: boolean;
  readonly verbose: boolean;
  /** Where JSON log lines go; empty for nowhere. */
  readonly logJson: string;
  /** Where readable log lines go; empty for nowhere. */
  readonly logHuman: string;
  /** Regular expressions a debug line must match to be written; empty writes them all (with --verbose). */
  readonly logFilter: readonly string[];
}

/** The introspection options, in `--help` order. */
export const INTROSPECTION_OPTIONS: readonly OptionDefinition<keyof IntrospectionValues>[] = [
  {
    key: 'swaggerEnable',
    name: 'Enable API Docs',
    flag: 'swagger-enable',
    env: 'COVE_SWAGGER_ENABLE',
    yaml: 'enable',
    group: INTROSPECTION_GROUP,
    configPath: ['swagger', 'enable'],
    kind: 'bool',
    default: 'false',
    description: 'Serve the OpenAPI document of the API at /swagger.',
  },
  {
    key: 'verbose',
    name: 'Verbose',
    flag: 'verbose',
    flagShorthand: 'v',
    env: 'COVE_VERBOSE',
    yaml: 'verbose',
    group: INTROSPECTION_GROUP,
    configPath: ['verbose'],
    kind: 'bool',
    default: 'false',
    description: 'Log every request and debug details.',
  },
  {
    key: 'logHuman',
    name: 'Human Log Location',
    flag: 'log-human',
    env: 'COVE_LOGGING_HUMAN',
    yaml: 'log_human',
    group: INTROSPECTION_GROUP,
    configPath: ['logging', 'human'],
    kind: 'string',
    default: '/dev/stderr',
    description: 'Write human-readable log lines to this file; empty for none.',
  },
  {
    key: 'logJson',
    name: 'JSON Log Location',
    flag: 'log-json',
    env: 'COVE_LOGGING_JSON',
    yaml: 'log_json',
    group: INTROSPECTION_GROUP,
    configPath: ['logging', 'json'],
    kind: 'string',
    default: '',
    description: 'Write JSON log lines to this file (/dev/stderr for the standard error), besides the human-readable ones.',
  },
  {
    key: 'logFilter',
    name: 'Log Filter',
    flag: 'log-filter',
    flagShorthand: 'l',
    env: 'COVE_LOG_FILTER',
    yaml: 'log_filter',
    group: INTROSPECTION_GROUP,
    configPath: ['logging', 'log_filter'],
    kind: 'string-array',
    default: '',
    description: 'Write debug lines only when they match one of these regular expressions (.* for all); implies --verbose.',
  },
];
