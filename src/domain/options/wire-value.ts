import { msToNs } from '../../lib/duration.js';
import type { OptionDefinition } from './option-types.js';
import type { DeploymentValues } from './registry.js';

/** Where the daemon writes its logs, as the reference names a log destination. */
const STDERR = '/dev/stderr';

/**
 * The value of one option as the deployment config shows it, in the reference's JSON types:
 * durations in nanoseconds, URLs as their text (the reference's URL type marshals to a string),
 * secrets blanked. `--log-json` is a switch here but a log file path in the reference, so JSON
 * logs show as the stream they go to, and no JSON logs as no path.
 */
export function wireValue(option: OptionDefinition<keyof DeploymentValues>, values: DeploymentValues): unknown {
  const value = values[option.key];
  if (option.secret) return option.kind === 'string-array' ? [] : '';
  if (option.kind === 'duration') return msToNs(value as number);
  if (option.key === 'logJson') return value === true ? STDERR : '';
  // The reference's client reads these lists as one comma-separated string.
  if (option.key === 'tlsCertFiles' || option.key === 'tlsKeyFiles' || option.key === 'tlsCiphers') return (value as string[]).join(',');
  // The claim mappings are JSON text on the command line, and objects in the reference's config.
  if (option.key === 'oidcGroupMapping' || option.key === 'oidcUserRoleMapping') return jsonObject(value as string);
  return value;
}

/** A mapping option's value as an object; the option check refused any other text at start. */
function jsonObject(text: string): unknown {
  try {
    return text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return {};
  }
}

/**
 * Whether the reference holds the setting in its URL type, which Go's `omitempty` never leaves out.
 * The wildcard access URL is a host pattern here, parsed as text, but a URL there.
 */
export function isUrlSetting(option: OptionDefinition<keyof DeploymentValues>): boolean {
  return option.kind === 'url' || option.key === 'wildcardAccessUrl';
}

/** The reference's human-readable log destination: the stream Cove writes readable lines to. */
export function humanLogPath(values: DeploymentValues): string {
  return values.logJson ? '' : STDERR;
}
