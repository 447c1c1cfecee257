import { msToNs } from '../../lib/duration.js';
import type { OptionDefinition } from './option-types.js';
import type { DeploymentValues } from './registry.js';

/**
 * The value of one option as the deployment config shows it, in the reference's JSON types:
 * durations in nanoseconds, URLs as their text (the reference's URL type marshals to a string),
 * secrets blanked.
 */
export function wireValue(option: OptionDefinition<keyof DeploymentValues>, values: DeploymentValues): unknown {
  const value = values[option.key];
  if (option.secret) return option.kind === 'string-array' ? [] : '';
  if (option.kind === 'duration') return msToNs(value as number);
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
