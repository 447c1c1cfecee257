import { readFile } from 'node:fs/promises';
import { parameterValueProblem, type ParameterRules } from '../../sdk/wire/parameter-value.js';
import type { NameValue, TemplateVersionParameter } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, OptionSpec } from '../command.js';
import { canPrompt, prompt } from '../prompt.js';
import { listOption, parsePairs, stringOption } from './templates-common.js';

/** `--parameter`, repeatable; declared through `repeatableOptions`. */
export const parameterOption: OptionSpec = {
  flags: '--parameter <name=value>',
  description: 'A rich parameter value (repeatable; wins over --rich-parameter-file)',
  env: 'COVE_RICH_PARAMETER',
};

/** `--rich-parameter-file`. */
export const parameterFileOption: OptionSpec = {
  flags: '--rich-parameter-file <file>',
  description: 'A YAML or JSON map of rich parameter names to values (a list becomes a list(string) value)',
  env: 'COVE_RICH_PARAMETER_FILE',
};

/** `--ephemeral-parameter`, repeatable: a value for this build only, never carried to the next. */
export const ephemeralParameterOption: OptionSpec = {
  flags: '--ephemeral-parameter <name=value>',
  description: 'A value of an ephemeral parameter, for this build only (repeatable)',
  env: 'COVE_EPHEMERAL_PARAMETER',
};

/** `--prompt-ephemeral-parameters`. */
export const promptEphemeralOption: OptionSpec = {
  flags: '--prompt-ephemeral-parameters',
  description: 'Ask on the terminal for the ephemeral parameters not given with --ephemeral-parameter',
  env: 'COVE_PROMPT_EPHEMERAL_PARAMETERS',
};

/** The flags of a build's parameters that are given at most once. */
export const buildParameterOptions: readonly OptionSpec[] = [parameterFileOption, promptEphemeralOption];

/** The repeatable flags of a build's parameters (declared through `repeatableOptions`). */
export const repeatableParameterOptions: readonly OptionSpec[] = [parameterOption, ephemeralParameterOption];

/** What the user gave for a build: plain values (file, then `--parameter`) and ephemeral ones. */
export interface GivenParameters {
  readonly values: Record<string, string>;
  readonly ephemeral: Record<string, string>;
  readonly promptEphemeral: boolean;
}

/**
 * The parameter values the user gave: the file's, then `--parameter`'s (which win); and the
 * `--ephemeral-parameter` values. A repeatable flag not given comes from its variable (a
 * comma-separated list: src/cli/list-options.ts).
 */
export async function givenParameters(options: Readonly<Record<string, unknown>>): Promise<GivenParameters> {
  const file = stringOption(options, 'richParameterFile');
  return {
    values: {
      ...(file === undefined ? {} : await readParameterFile(file)),
      ...parsePairs(listOption(options, 'parameter'), '--parameter'),
    },
    ephemeral: parsePairs(listOption(options, 'ephemeralParameter'), '--ephemeral-parameter'),
    promptEphemeral: options['promptEphemeralParameters'] === true,
  };
}

/** Whether anything at all was given for the build. */
export function anyGiven(given: GivenParameters): boolean {
  return Object.keys(given.values).length > 0 || Object.keys(given.ephemeral).length > 0 || given.promptEphemeral;
}

/** What the values of a build are chosen from. */
export interface ParameterSources {
  /** The parameters of the version the build will use. */
  readonly parameters: readonly TemplateVersionParameter[];
  /** Values from flags and files. */
  readonly given: Readonly<Record<string, string>>;
  /** Values of ephemeral parameters (`--ephemeral-parameter`), for this build only. */
  readonly ephemeral?: Readonly<Record<string, string>>;
  /** Ask for the ephemeral parameters that have no value (`--prompt-ephemeral-parameters`). */
  readonly promptEphemeral?: boolean;
  /** Send the default of every parameter left without a value (`--use-parameter-defaults`). */
  readonly useDefaults?: boolean;
  /** The previous build's values; undefined for a new workspace. */
  readonly previous?: readonly NameValue[] | undefined;
  /** Values a preset fixes; they win over everything else, as in the reference. */
  readonly preset?: readonly NameValue[] | undefined;
  /** Never ask, even on a terminal (`-y`): a missing required value is an error, a missing optional one is left out. */
  readonly noPrompt?: boolean;
}

/**
 * The values to send with a build: the given and preset ones, checked against the version's
 * rules here so a mistake is named before anything is built, plus answers for parameters that
 * have no value at all. Those are asked on a terminal; without one, the missing required
 * parameters are listed in one error. Everything else is left to the API, which falls back to
 * the previous build's values and then to the defaults (or sent as the defaults, with
 * `useDefaults`, as the reference's `--use-parameter-defaults` does).
 */
export async function resolveParameters(context: CommandContext, sources: ParameterSources): Promise<NameValue[]> {
  const known = new Map(sources.parameters.map((p) => [p.name, p]));
  const given = { ...sources.given, ...sources.ephemeral };
  for (const name of Object.keys(given)) {
    if (!known.has(name)) throw unknownParameter(name, [...known.keys()]);
  }
  if (sources.promptEphemeral === true && !canPrompt(context.io)) {
    throw new CliError('--prompt-ephemeral-parameters asks on a terminal, and there is none.', {
      hint: 'Give the values with --ephemeral-parameter NAME=VALUE instead.',
    });
  }
  const previous = new Map((sources.previous ?? []).map((entry) => [entry.name, entry.value]));
  const preset = new Map((sources.preset ?? []).map((entry) => [entry.name, entry.value]));
  const chosen: NameValue[] = [];
  const missing: TemplateVersionParameter[] = [];
  const askEphemeral: TemplateVersionParameter[] = [];
  for (const parameter of [...sources.parameters].sort((a, b) => (a.order ?? 0) - (b.order ?? 0))) {
    const typed = given[parameter.name];
    const fixed = preset.get(parameter.name);
    if (fixed !== undefined && typed !== undefined && fixed !== typed) {
      context.io.stderr.write(`warning: the preset sets ${parameter.name}=${fixed}; --parameter ${parameter.name}=${typed} is ignored.\n`);
    }
    const value = fixed ?? typed;
    const before = parameter.ephemeral ? undefined : previous.get(parameter.name);
    if (value !== undefined) {
      checkValue(parameter, value, before, sources.previous !== undefined);
      chosen.push({ name: parameter.name, value });
    } else if (parameter.ephemeral && sources.promptEphemeral === true) {
      askEphemeral.push(parameter);
    } else if (before === undefined && sources.useDefaults === true && !parameter.ephemeral && parameter.default_value !== '') {
      context.say(`Using the default value of ${parameter.name}: '${parameter.default_value}'`);
      chosen.push({ name: parameter.name, value: parameter.default_value });
    } else if (before === undefined && parameter.default_value === '') {
      missing.push(parameter);
    }
  }
  // Asked for by name, so asked even under -y.
  for (const parameter of askEphemeral) {
    const answer = await ask(context, parameter, parameter.default_value);
    if (answer !== '') chosen.push({ name: parameter.name, value: answer });
  }
  if (missing.length === 0) return chosen;
  if (sources.noPrompt === true || !canPrompt(context.io)) {
    const required = missing.filter((p) => p.required);
    if (required.length > 0) throw missingParameters(required);
    return chosen;
  }
  for (const parameter of missing) {
    const answer = await ask(context, parameter);
    if (answer !== '') chosen.push({ name: parameter.name, value: answer });
  }
  return chosen;
}

function checkValue(parameter: TemplateVersionParameter, value: string, previous: string | undefined, existing: boolean): void {
  if (existing && !parameter.mutable && previous !== undefined && previous !== value) {
    throw new CliError(`Parameter "${parameter.name}" cannot be changed after the workspace is created (it is "${previous}").`);
  }
  const problem =
    value === '' ? (parameter.required ? 'a value is required' : undefined) : parameterValueProblem(rulesOf(parameter), value, previous);
  const rules = describeRules(parameter);
  if (problem)
    throw new CliError(
      `Invalid value for parameter "${parameter.name}": ${problem}.`,
      rules ? { hint: `"${parameter.name}" takes ${rules}.` } : {},
    );
}

/** Asks for one value until it passes the parameter's rules; an optional one may stay empty. */
async function ask(context: CommandContext, parameter: TemplateVersionParameter, defaultValue = ''): Promise<string> {
  const out = context.io.stderr;
  const title =
    parameter.display_name && parameter.display_name !== parameter.name ? `${parameter.display_name} (${parameter.name})` : parameter.name;
  out.write(`\n${title}${parameter.required ? '' : ', optional'}\n`);
  const about = parameter.description_plaintext || parameter.description;
  if (about) out.write(`  ${about}\n`);
  const rules = describeRules(parameter);
  if (rules) out.write(`  ${rules}\n`);
  parameter.options.forEach((option, i) =>
    out.write(
      `  ${i + 1}) ${option.name}${option.name === option.value ? '' : ` [${option.value}]`}${option.description ? ` - ${option.description}` : ''}\n`,
    ),
  );
  for (;;) {
    const question = defaultValue === '' ? `${parameter.name}: ` : `${parameter.name} (${defaultValue}): `;
    const typed = (await prompt(context.io, question)).trim();
    const answer = typed === '' ? defaultValue : normalizeAnswer(parameter, typed);
    if (answer === '' && !parameter.required) return '';
    const problem = answer === '' ? 'a value is required' : parameterValueProblem(rulesOf(parameter), answer);
    if (!problem) return answer;
    out.write(`  ${problem}; try again.\n`);
  }
}

/** Lets people answer with an option's number, `y`/`n`, or a comma-separated list. */
function normalizeAnswer(parameter: TemplateVersionParameter, answer: string): string {
  const byNumber = (text: string) => {
    const index = /^\d+$/.test(text) ? Number(text) - 1 : -1;
    return parameter.options[index]?.value ?? text;
  };
  if (parameter.type === 'bool') return /^y(es)?$/i.test(answer) ? 'true' : /^no?$/i.test(answer) ? 'false' : answer;
  if (parameter.type === 'list(string)') {
    if (answer === '' || answer.startsWith('[')) return answer;
    return JSON.stringify(
      answer
        .split(',')
        .map((item) => byNumber(item.trim()))
        .filter((item) => item !== ''),
    );
  }
  return parameter.type === 'number' && parameter.options.length === 0 ? answer : byNumber(answer);
}

/** The rules of a parameter in a few words, e.g. `a number from 1 to 8`. */
function describeRules(parameter: TemplateVersionParameter): string {
  const parts: string[] = [];
  if (parameter.type === 'number') {
    const { validation_min: min, validation_max: max } = parameter;
    const range =
      min != null && max != null ? ` from ${min} to ${max}` : min != null ? ` of at least ${min}` : max != null ? ` of at most ${max}` : '';
    parts.push(`a whole number${range}`);
    if (parameter.validation_monotonic) parts.push(`that may only ${parameter.validation_monotonic === 'increasing' ? 'grow' : 'shrink'}`);
  } else if (parameter.type === 'bool') {
    parts.push('true or false');
  } else if (parameter.type === 'list(string)') {
    parts.push('a list (a JSON array, or items separated by commas)');
  }
  if (parameter.options.length > 0) parts.push(`one of: ${parameter.options.map((o) => o.value).join(', ')}`);
  if (parameter.validation_regex) parts.push(`matching ${parameter.validation_regex}`);
  return parts.join(', ');
}

/** The wire's parameter in the shape the shared validation reads. */
function rulesOf(parameter: TemplateVersionParameter): ParameterRules {
  const types: readonly ParameterRules['type'][] = ['string', 'number', 'bool', 'list(string)'];
  const monotonic = parameter.validation_monotonic;
  return {
    name: parameter.name,
    type: types.find((type) => type === parameter.type) ?? 'string',
    options: parameter.options,
    validation_min: parameter.validation_min ?? null,
    validation_max: parameter.validation_max ?? null,
    validation_monotonic: monotonic === 'increasing' || monotonic === 'decreasing' ? monotonic : '',
    validation_regex: parameter.validation_regex ?? '',
    validation_error: parameter.validation_error ?? '',
  };
}

function missingParameters(parameters: readonly TemplateVersionParameter[]): CliError {
  const names = parameters.map((p) => p.name);
  const lines = parameters.map((p) => `${p.name}${describeRules(p) ? ` (${describeRules(p)})` : ''}`);
  return new CliError(`${names.length === 1 ? 'Parameter' : 'Parameters'} without a value: ${lines.join('; ')}.`, {
    hint: `Give ${names.length === 1 ? 'it' : 'them'} with ${names.map((n) => `--parameter ${n}=VALUE`).join(' ')}, or with --rich-parameter-file FILE; on a terminal cove asks.`,
  });
}

function unknownParameter(name: string, names: readonly string[]): CliError {
  const nearest = names
    .map((candidate) => ({ candidate, distance: editDistance(name, candidate) }))
    .sort((a, b) => a.distance - b.distance)[0];
  const hint =
    nearest && nearest.distance <= Math.max(2, Math.floor(name.length / 3))
      ? `Did you mean "${nearest.candidate}"?`
      : names.length > 0
        ? `The template's parameters are: ${names.join(', ')}.`
        : 'The template has no parameters.';
  return new CliError(`The template has no parameter "${name}".`, { hint });
}

/** Levenshtein distance, for the "did you mean" of a mistyped parameter name. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      next.push(Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + cost));
    }
    row = next;
  }
  return row[b.length] ?? 0;
}

/**
 * A map of parameter names to values; YAML, which JSON also is. A list becomes the JSON array of
 * its items as text, the value a `list(string)` parameter takes, as the reference sends it; a
 * map (or a list holding one) is no parameter value, and is refused by name.
 */
async function readParameterFile(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read the parameter file ${path}: ${(error as Error).message}`);
  }
  const { parse } = await import('yaml');
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new CliError(`The parameter file ${path} is not valid YAML or JSON: ${(error as Error).message}`);
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw new CliError(`The parameter file ${path} must hold a map of parameter names to values.`);
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, fileValue(path, key, value)]));
}

/** One value of the parameter file as the text the API takes. */
function fileValue(path: string, key: string, value: unknown): string {
  if (Array.isArray(value)) return JSON.stringify(value.map((item) => scalarText(path, key, item)));
  return scalarText(path, key, value);
}

function scalarText(path: string, key: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new CliError(`The value of "${key}" in ${path} is not a parameter value (a string, number, boolean or list of them).`, {
    hint: 'A list(string) parameter takes a list, e.g. "tags: [a, b]" or one item per "- " line.',
  });
}
