/**
 * Rich-parameter value rules, beside the wire vocabulary they judge: the daemon (domain), the
 * provisioners and the CLI check values with this one code. It imports nothing, so the domain may
 * load it (see the import check).
 */

/** What validation reads of a rich parameter; the wire's `RichParameter` fits it. */
export interface ParameterRules {
  readonly name: string;
  readonly type: 'string' | 'number' | 'bool' | 'list(string)';
  readonly options: readonly { readonly value: string }[];
  readonly validation_min: number | null;
  readonly validation_max: number | null;
  readonly validation_monotonic: '' | 'increasing' | 'decreasing';
  readonly validation_regex: string;
  readonly validation_error: string;
}

/**
 * Checks one value of a rich parameter the way the reference validates build parameters: type,
 * options, min/max, monotonic (when a previous value is known) and regex. Returns what is wrong,
 * or undefined. An empty value is not judged here: whether it may be empty is the caller's rule.
 */
export function parameterValueProblem(parameter: ParameterRules, value: string, previous?: string): string | undefined {
  switch (parameter.type) {
    case 'bool':
      if (value !== 'true' && value !== 'false') return `value "${value}" must be true or false`;
      return optionProblem(parameter, [value]);
    case 'number':
      return numberProblem(parameter, value, previous) ?? optionProblem(parameter, [value]);
    case 'list(string)': {
      const items = stringList(value);
      if (items === undefined) return `value ${JSON.stringify(value)} must be a JSON array of strings`;
      return optionProblem(parameter, items);
    }
    case 'string':
      return optionProblem(parameter, [value]) ?? regexProblem(parameter, value);
  }
}

/** The elements of a `list(string)` value, or undefined when it is not a JSON array of strings. */
export function stringList(value: string): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  return Array.isArray(parsed) && parsed.every((item) => typeof item === 'string') ? parsed : undefined;
}

/** Integers only, as the reference parses numbers (no fractions, no exponents). */
export function isIntegerText(value: string): boolean {
  return /^[-+]?\d+$/.test(value.trim());
}

function optionProblem(parameter: ParameterRules, values: readonly string[]): string | undefined {
  if (parameter.options.length === 0) return undefined;
  const allowed = parameter.options.map((option) => option.value);
  const bad = values.find((value) => !allowed.includes(value));
  return bad === undefined ? undefined : `value "${bad}" must match one of options: [${allowed.join(', ')}]`;
}

function numberProblem(parameter: ParameterRules, value: string, previous: string | undefined): string | undefined {
  if (!isIntegerText(value)) return `value "${value}" must be an integer`;
  const n = Number(value);
  const custom = (fallback: string): string =>
    parameter.validation_error === ''
      ? fallback
      : parameter.validation_error
          .replaceAll('{min}', String(parameter.validation_min ?? ''))
          .replaceAll('{max}', String(parameter.validation_max ?? ''))
          .replaceAll('{value}', value);
  if (parameter.validation_min !== null && n < parameter.validation_min) {
    return custom(`value ${n} is less than the minimum ${parameter.validation_min}`);
  }
  if (parameter.validation_max !== null && n > parameter.validation_max) {
    return custom(`value ${n} is more than the maximum ${parameter.validation_max}`);
  }
  if (previous !== undefined && isIntegerText(previous)) {
    const before = Number(previous);
    if (parameter.validation_monotonic === 'increasing' && n < before) {
      return custom(`value ${n} must be equal or greater than the previous value ${before}`);
    }
    if (parameter.validation_monotonic === 'decreasing' && n > before) {
      return custom(`value ${n} must be equal or lower than the previous value ${before}`);
    }
  }
  return undefined;
}

function regexProblem(parameter: ParameterRules, value: string): string | undefined {
  if (parameter.validation_regex === '') return undefined;
  if (new RegExp(parameter.validation_regex).test(value)) return undefined;
  const reason = `value "${value}" does not match "${parameter.validation_regex}"`;
  return parameter.validation_error === '' ? reason : `${parameter.validation_error} (${reason})`;
}

/** The form the reference picks for a parameter that names none. */
export function defaultFormType(type: ParameterRules['type'], hasOptions: boolean): string {
  if (type === 'list(string)') return hasOptions ? 'multi-select' : 'tag-select';
  if (hasOptions) return 'radio';
  return type === 'bool' ? 'checkbox' : 'input';
}
