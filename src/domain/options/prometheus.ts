import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The Prometheus section of `--help` and of the YAML file. */
export const PROMETHEUS_GROUP: OptionGroup = {
  name: 'Prometheus',
  yaml: 'prometheus',
  description: 'Metrics for Prometheus to scrape, on a listener of their own.',
};

/** What the Prometheus options resolve to. */
export interface PrometheusValues {
  readonly prometheusEnable: boolean;
  readonly prometheusAddress: string;
}

/** The Prometheus options, in `--help` order. */
export const PROMETHEUS_OPTIONS: readonly OptionDefinition<keyof PrometheusValues>[] = [
  {
    key: 'prometheusEnable',
    name: 'Prometheus Enable',
    flag: 'prometheus-enable',
    env: 'COVE_PROMETHEUS_ENABLE',
    yaml: 'enable',
    group: PROMETHEUS_GROUP,
    configPath: ['prometheus', 'enable'],
    kind: 'bool',
    default: 'false',
    description: 'Serve Prometheus metrics at /metrics on --prometheus-address.',
  },
  {
    key: 'prometheusAddress',
    name: 'Prometheus Address',
    flag: 'prometheus-address',
    env: 'COVE_PROMETHEUS_ADDRESS',
    yaml: 'address',
    group: PROMETHEUS_GROUP,
    configPath: ['prometheus', 'address'],
    kind: 'string',
    default: '127.0.0.1:2112',
    description: 'Address and port of the metrics listener, apart from the API; use port 0 for a random free port.',
  },
];
