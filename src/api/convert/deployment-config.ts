import { OPTION_DEFINITIONS, describeDefault, isUrlSetting, wireValue } from '../../domain/deployment-options.js';
import type { DeploymentValues, OptionDefinition, ValueSource } from '../../domain/deployment-options.js';
import { EMBEDDED_REGION_ID, RELAY_REGION_CODE, RELAY_REGION_NAME } from '../../domain/relay-map.js';
import type { DeploymentConfig, DeploymentOption } from '../../sdk/wire/index.js';
import { toWireExternalAuthConfig } from './external-auth-config.js';

/**
 * `GET /deployment/config` as the reference's server sends it: the `config` object under the
 * reference's names and JSON types, and one entry per option. The reference marshals both with Go's
 * `omitempty`, so empty values are left out where its types mark a field optional: every top-level
 * setting and an option's descriptive fields. Its URL type is a struct, which `omitempty` keeps, so
 * URL settings are sent even when empty; the fields of a nested group are always sent.
 */
export function toWireDeploymentConfig(
  values: DeploymentValues,
  sources: Readonly<Record<keyof DeploymentValues, ValueSource>>,
): DeploymentConfig {
  const config: Record<string, unknown> = {};
  const options: DeploymentOption[] = [];
  for (const option of OPTION_DEFINITIONS) {
    const value = wireValue(option, values);
    if (!(omittedWhenEmpty(option) && isEmpty(value))) setPath(config, option.configPath, value);
    const annotations = { ...(option.annotations ?? {}), ...(option.secret ? { secret: 'true' } : {}) };
    const defaultText = option.secret ? '' : describeDefault(option);
    options.push({
      name: option.name,
      description: option.description,
      flag: option.flag,
      ...(option.flagShorthand ? { flag_shorthand: option.flagShorthand } : {}),
      env: option.env,
      ...(option.yaml !== '' ? { yaml: option.yaml } : {}),
      ...(defaultText !== '' ? { default: defaultText } : {}),
      // An option's value is an interface in the reference, which `omitempty` keeps when it holds an empty value.
      value,
      value_source: sources[option.key],
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      // The reference leaves a group's parent out when it has none; Cove's groups are not nested.
      group: { name: option.group.name, yaml: option.group.yaml, description: option.group.description },
      ...(option.hidden ? { hidden: true } : {}),
    });
  }
  // Not settings here but facts of every deployment, in the groups clients of the reference read:
  // nothing is reported anywhere and the only relay is the one built into the daemon.
  config['telemetry'] = { enable: false, trace: false, url: '' };
  // Left out when none is configured, as the reference's `omitempty` does.
  if (values.externalAuthProviders.length > 0) config['external_auth'] = values.externalAuthProviders.map(toWireExternalAuthConfig);
  config['derp'] = {
    server: {
      enable: true,
      region_id: EMBEDDED_REGION_ID,
      region_code: RELAY_REGION_CODE,
      region_name: RELAY_REGION_NAME,
      stun_addresses: [],
      relay_url: values.relayUrl,
    },
    config: { url: '', path: '', block_direct: true, force_websockets: true },
  };
  // Each message's state is written as it changes: nothing is buffered, so nothing waits to be synchronised.
  // Traces go to the OTLP collector the OTEL_* variables name, with no vendor of their own.
  setPath(config, ['trace', 'honeycomb_api_key'], '');
  setPath(config, ['trace', 'capture_logs'], false);
  setPath(config, ['trace', 'data_dog'], false);
  setPath(config, ['notifications', 'sync_interval'], 0);
  setPath(config, ['notifications', 'sync_buffer_size'], 0);
  return { config, options };
}

/** Settings the reference marks optional inside a nested group: the rest of a group is always sent. */
const OPTIONAL_NESTED = new Set([
  'session_lifetime.disable_expiry_refresh',
  'session_lifetime.default_token_lifetime',
  'session_lifetime.max_token_lifetime',
  'session_lifetime.max_admin_token_lifetime',
]);

function omittedWhenEmpty(option: OptionDefinition<keyof DeploymentValues>): boolean {
  if (isUrlSetting(option)) return false;
  return option.configPath.length === 1 || OPTIONAL_NESTED.has(option.configPath.join('.'));
}

/** Whether Go's `omitempty` leaves a value of a setting out: an empty text, list, `false` or zero. */
function isEmpty(value: unknown): boolean {
  return value === '' || value === false || value === 0 || (Array.isArray(value) && value.length === 0);
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next === 'object' && next !== null) node = next as Record<string, unknown>;
    else node = node[key] = {};
  }
  const last = path.at(-1);
  if (last !== undefined) node[last] = value;
}
