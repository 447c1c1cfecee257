import { formatDuration, parseDuration } from '../../lib/duration.js';
import type { OptionDefinition } from './option-types.js';

/** The text form of a default, for `--help`. */
export function describeDefault(option: OptionDefinition): string {
  if (option.kind === 'duration') {
    const ms = parseDuration(option.default);
    return ms === undefined ? option.default : formatDuration(ms);
  }
  return option.default;
}
