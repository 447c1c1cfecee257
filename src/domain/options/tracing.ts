import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The tracing section of `--help` and of the YAML file. */
export const TRACING_GROUP: OptionGroup = {
  name: 'Tracing',
  yaml: 'tracing',
  description: 'OpenTelemetry traces, exported over OTLP to the collector the standard OTEL_* variables name.',
};

/** What the tracing options resolve to. */
export interface TracingValues {
  readonly traceEnable: boolean;
}

/** The tracing options, in `--help` order. */
export const TRACING_OPTIONS: readonly OptionDefinition<keyof TracingValues>[] = [
  {
    key: 'traceEnable',
    name: 'Trace Enable',
    flag: 'trace',
    env: 'COVE_TRACE_ENABLE',
    yaml: 'enable',
    group: TRACING_GROUP,
    configPath: ['trace', 'enable'],
    kind: 'bool',
    default: 'false',
    description:
      'Export traces of requests, database queries, provisioner jobs and relay streams over OTLP/HTTP, to ' +
      'OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318); OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER and the ' +
      "exporter's other OTEL_* variables apply.",
  },
];
