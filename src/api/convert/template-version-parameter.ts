import type { RichParameter, TemplateVersionParameter } from '../../sdk/wire/index.js';

/**
 * A version's parameter as the API shows it: what the reference's server leaves out when empty
 * (`omitempty`: the display name and the validation fields) is left out.
 */
export function toWireVersionParameter(parameter: RichParameter): TemplateVersionParameter {
  return {
    ...parameter,
    display_name: parameter.display_name || undefined,
    description_plaintext: parameter.description,
    validation_regex: parameter.validation_regex || undefined,
    validation_error: parameter.validation_error || undefined,
    validation_min: parameter.validation_min ?? undefined,
    validation_max: parameter.validation_max ?? undefined,
    validation_monotonic: parameter.validation_monotonic || undefined,
  };
}
