import type { TemplateVersionPreset } from '../../sdk/wire/index.js';
import { parseJson } from '../../store/json-column.js';

/** A preset as a version's import stored it. */
interface StoredPreset {
  readonly id: string;
  readonly name: string;
  readonly default?: boolean;
  readonly parameters: readonly { readonly name: string; readonly value: string }[];
}

/** A version's stored presets as the reference's server sends them: keyed by its Go field names. */
export function toWirePresets(stored: string): TemplateVersionPreset[] {
  return parseJson<StoredPreset[]>(stored, []).map((preset) => ({
    ID: preset.id,
    Name: preset.name,
    Parameters: preset.parameters.map((parameter) => ({ Name: parameter.name, Value: parameter.value })),
    Default: preset.default === true,
  }));
}
