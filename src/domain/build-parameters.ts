import { HttpProblem } from '../lib/errors.js';
import { parameterValueProblem } from '../sdk/wire/parameter-value.js';
import type { NameValue, RichParameter } from '../sdk/wire/index.js';

/**
 * The parameter values a build uses, resolved as the reference does: a supplied value, else the
 * previous build's (never for ephemeral parameters), else the default. Immutable parameters keep
 * their first value; required ones must have one; every value is checked against its rules, with
 * monotonic rules against the previous value. Values for names the version does not define are
 * ignored.
 */
export function resolveBuildParameters(
  parameters: readonly RichParameter[],
  supplied: readonly NameValue[],
  previous: readonly NameValue[] | undefined,
): NameValue[] {
  const given = new Map(supplied.map((entry) => [entry.name, entry.value]));
  const before = new Map((previous ?? []).map((entry) => [entry.name, entry.value]));
  const resolved: NameValue[] = [];
  for (const parameter of [...parameters].sort((a, b) => a.order - b.order)) {
    const value = given.get(parameter.name);
    const prior = parameter.ephemeral ? undefined : before.get(parameter.name);
    if (!parameter.mutable && previous !== undefined && value !== undefined && prior !== undefined && value !== prior) {
      throw invalid(parameter, `Parameter "${parameter.name}" is not mutable, so it can't be updated after creating a workspace.`);
    }
    const effective = value ?? prior ?? parameter.default_value;
    if (effective === '') {
      if (parameter.required) throw invalid(parameter, `Parameter "${parameter.name}" is required but not provided`);
      continue;
    }
    const problem = parameterValueProblem(parameter, effective, before.get(parameter.name));
    if (problem) throw invalid(parameter, `can't validate build parameter "${parameter.display_name || parameter.name}": ${problem}`);
    resolved.push({ name: parameter.name, value: effective });
  }
  return resolved;
}

function invalid(parameter: RichParameter, detail: string): HttpProblem {
  return new HttpProblem(400, `Unable to validate parameter "${parameter.name}"`, {
    detail,
    validations: [{ field: 'rich_parameter_values', detail }],
  });
}
