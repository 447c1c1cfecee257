import { msToNs } from '../../lib/duration.js';
import type { OptionDefinition } from './option-types.js';
import type { DeploymentValues } from './registry.js';
import { urlObject } from './url-object.js';

/**
 * The value of one option as the deployment config shows it: durations in nanoseconds, URLs as
 * objects of their parts, secrets blanked.
 */
export function wireValue(option: OptionDefinition<keyof DeploymentValues>, values: DeploymentValues): unknown {
  const value = values[option.key];
  if (option.secret) return '';
  if (option.kind === 'duration') return msToNs(value as number);
  if (option.kind === 'url' || option.key === 'wildcardAccessUrl') return urlObject(String(value));
  return value;
}
