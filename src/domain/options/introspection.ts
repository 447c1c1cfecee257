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
  readonly logJson: boolean;
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
    key: 'logJson',
    name: 'JSON Logs',
    flag: 'log-json',
    env: 'COVE_LOG_JSON',
    yaml: 'log_json',
    group: INTROSPECTION_GROUP,
    configPath: ['logging', 'json'],
    kind: 'bool',
    default: 'false',
    description: 'Write logs as JSON lines instead of human-readable text.',
  },
];
