import { parameterValueProblem } from '../sdk/wire/parameter-value.js';
import type { DynamicParameter, DynamicParametersResponse, RichParameter } from '../sdk/wire/index.js';

type Diagnostic = DynamicParametersResponse['diagnostics'][number];

function error(summary: string, detail: string, code: string): Diagnostic {
  return { severity: 'error', summary, detail, extra: { code } };
}

/**
 * Evaluates a version's parameters against the values a form holds so far: each parameter with
 * its value in effect and what is wrong with it. Inputs for names the version does not define are
 * reported once, at the top.
 */
export function evaluateParameters(
  id: number,
  parameters: readonly RichParameter[],
  inputs: Readonly<Record<string, string>>,
): DynamicParametersResponse {
  const known = new Set(parameters.map((parameter) => parameter.name));
  const diagnostics = Object.keys(inputs)
    .filter((name) => !known.has(name))
    .map((name): Diagnostic => ({
      severity: 'warning',
      summary: 'Unknown parameter',
      detail: `the template has no parameter "${name}"`,
      extra: { code: 'unknown_parameter' },
    }));
  return {
    id,
    diagnostics,
    parameters: [...parameters].sort((a, b) => a.order - b.order).map((parameter) => evaluateOne(parameter, inputs[parameter.name])),
  };
}

function evaluateOne(parameter: RichParameter, input: string | undefined): DynamicParameter {
  const value = input ?? parameter.default_value;
  const diagnostics: Diagnostic[] = [];
  if (value === '') {
    if (parameter.required)
      diagnostics.push(error('Required parameter not provided', `parameter "${parameter.name}" is required`, 'required'));
  } else {
    const problem = parameterValueProblem(parameter, value);
    if (problem) diagnostics.push(error('Invalid parameter value', problem, 'invalid_value'));
  }
  return {
    name: parameter.name,
    display_name: parameter.display_name,
    description: parameter.description,
    icon: parameter.icon,
    type: parameter.type,
    form_type: parameter.form_type,
    mutable: parameter.mutable,
    ephemeral: parameter.ephemeral,
    required: parameter.required,
    order: parameter.order,
    default_value: { valid: true, value: parameter.default_value },
    value: { valid: diagnostics.length === 0, value },
    diagnostics,
    options: parameter.options.map((option) => ({
      name: option.name,
      description: option.description,
      icon: option.icon,
      value: { valid: true, value: option.value },
    })),
    styling: { disabled: false, label: '', placeholder: '' },
    validations:
      parameter.validation_min === null &&
      parameter.validation_max === null &&
      parameter.validation_regex === '' &&
      parameter.validation_monotonic === ''
        ? []
        : [
            {
              validation_error: parameter.validation_error,
              validation_min: parameter.validation_min,
              validation_max: parameter.validation_max,
              validation_monotonic: parameter.validation_monotonic,
              validation_regex: parameter.validation_regex,
            },
          ],
  };
}
