import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The health check section of `--help` and of the YAML file. */
export const HEALTH_CHECK_GROUP: OptionGroup = {
  name: 'Health Check',
  yaml: 'healthcheck',
  description: 'The health report of /debug/health.',
};

/** What the health check options resolve to; durations are milliseconds. */
export interface HealthCheckValues {
  readonly healthCheckRefreshMs: number;
  readonly healthCheckThresholdDatabaseMs: number;
}

/** The health check options, in `--help` order. */
export const HEALTH_CHECK_OPTIONS: readonly OptionDefinition<keyof HealthCheckValues>[] = [
  {
    key: 'healthCheckRefreshMs',
    name: 'Health Check Refresh',
    flag: 'health-check-refresh',
    env: 'COVE_HEALTH_CHECK_REFRESH',
    yaml: 'refresh',
    group: HEALTH_CHECK_GROUP,
    configPath: ['healthcheck', 'refresh'],
    kind: 'duration',
    default: '10m',
    description: 'How often the health checks run in the background; /debug/health serves the last report until then.',
  },
  {
    key: 'healthCheckThresholdDatabaseMs',
    name: 'Health Check Database Threshold',
    flag: 'health-check-threshold-database',
    env: 'COVE_HEALTH_CHECK_THRESHOLD_DATABASE',
    yaml: 'threshold_database',
    group: HEALTH_CHECK_GROUP,
    configPath: ['healthcheck', 'threshold_database'],
    kind: 'duration',
    default: '15ms',
    description: 'A median database round trip this slow or slower makes the health report warn (EDB02).',
  },
];
