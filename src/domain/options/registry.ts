import { APPEARANCE_OPTIONS, type AppearanceValues } from './appearance.js';
import { DATABASE_OPTIONS, type DatabaseValues } from './database.js';
import { EMAIL_OPTIONS, type EmailValues } from './email.js';
import type { ExternalAuthValues } from './external-auth.js';
import { GENERAL_OPTIONS, type GeneralValues } from './general.js';
import { HEALTH_CHECK_OPTIONS, type HealthCheckValues } from './health-check.js';
import { INSTANCE_IDENTITY_OPTIONS, type InstanceIdentityValues } from './instance-identity.js';
import { INTROSPECTION_OPTIONS, type IntrospectionValues } from './introspection.js';
import { LICENSE_OPTIONS, type LicenseValues } from './licenses.js';
import { NETWORKING_OPTIONS, type NetworkingValues } from './networking.js';
import { NOTIFICATIONS_OPTIONS, type NotificationsValues } from './notifications.js';
import { OAUTH2_OIDC_OPTIONS, type OAuth2OidcValues } from './oauth2-oidc.js';
import type { OptionDefinition } from './option-types.js';
import { PROMETHEUS_OPTIONS, type PrometheusValues } from './prometheus.js';
import { PROVISIONING_OPTIONS, type ProvisioningValues } from './provisioning.js';
import { PROXY_OPTIONS, type ProxyValues } from './proxy.js';
import { QUIET_HOURS_OPTIONS, type QuietHoursValues } from './quiet-hours.js';
import { RATE_LIMIT_OPTIONS, type RateLimitValues } from './rate-limiting.js';
import { RETENTION_OPTIONS, type RetentionValues } from './retention.js';
import { SECURITY_OPTIONS, type SecurityValues } from './security.js';
import { SESSION_OPTIONS, type SessionValues } from './sessions.js';
import { SSH_OPTIONS, type SshValues } from './ssh.js';
import { TLS_OPTIONS, type TlsValues } from './tls.js';
import { TRACING_OPTIONS, type TracingValues } from './tracing.js';

/**
 * Every server setting, declared once, in the file of its group. `cove serve --help`, the
 * `--config` YAML file, the environment and `GET /deployment/config` all read this list, so a
 * setting cannot exist in one place and be missing from another.
 */

/** The resolved settings of one daemon: every group's slice. Durations are milliseconds. */
export type DeploymentValues = NetworkingValues &
  DatabaseValues &
  ProvisioningValues &
  SessionValues &
  RateLimitValues &
  SecurityValues &
  OAuth2OidcValues &
  EmailValues &
  GeneralValues &
  SshValues &
  LicenseValues &
  InstanceIdentityValues &
  IntrospectionValues &
  PrometheusValues &
  HealthCheckValues &
  AppearanceValues &
  ExternalAuthValues &
  NotificationsValues &
  RetentionValues &
  ProxyValues &
  TracingValues &
  TlsValues &
  QuietHoursValues;

/** The options of `options` before the one of `key`: the first run of a group the list splits. */
function before<Key extends string>(options: readonly OptionDefinition<Key>[], key: Key): readonly OptionDefinition<Key>[] {
  return options.slice(0, indexOf(options, key));
}

/** The options of `options` from the one of `key` on: the later run of a group the list splits. */
function from<Key extends string>(options: readonly OptionDefinition<Key>[], key: Key): readonly OptionDefinition<Key>[] {
  return options.slice(indexOf(options, key));
}

function indexOf<Key extends string>(options: readonly OptionDefinition<Key>[], key: Key): number {
  const index = options.findIndex((option) => option.key === key);
  if (index < 0) throw new Error(`no option ${key} in its group`);
  return index;
}

/**
 * The whole list. `--help` shows the groups in the order of their first option here, and each
 * group's options in this order. The order is kept as options were added, not regrouped:
 * `GET /deployment/config` lists the options and builds its `config` object in it, and the YAML
 * file is read in it. So a group that gained an option after later groups existed is split in two.
 */
export const OPTION_DEFINITIONS: readonly OptionDefinition<keyof DeploymentValues>[] = [
  ...NETWORKING_OPTIONS,
  ...DATABASE_OPTIONS,
  ...PROVISIONING_OPTIONS,
  ...SESSION_OPTIONS,
  ...RATE_LIMIT_OPTIONS,
  ...before(SECURITY_OPTIONS, 'disableOwnerWorkspaceExec'),
  ...OAUTH2_OIDC_OPTIONS,
  ...EMAIL_OPTIONS,
  ...from(SECURITY_OPTIONS, 'disableOwnerWorkspaceExec'),
  ...before(GENERAL_OPTIONS, 'configFile'),
  ...SSH_OPTIONS,
  ...LICENSE_OPTIONS,
  ...INSTANCE_IDENTITY_OPTIONS,
  ...before(INTROSPECTION_OPTIONS, 'verbose'),
  ...PROMETHEUS_OPTIONS,
  ...HEALTH_CHECK_OPTIONS,
  ...from(INTROSPECTION_OPTIONS, 'verbose'),
  ...APPEARANCE_OPTIONS,
  ...RETENTION_OPTIONS,
  ...from(GENERAL_OPTIONS, 'configFile'),
  ...NOTIFICATIONS_OPTIONS,
  ...PROXY_OPTIONS,
  ...TRACING_OPTIONS,
  ...TLS_OPTIONS,
  ...QUIET_HOURS_OPTIONS,
];
