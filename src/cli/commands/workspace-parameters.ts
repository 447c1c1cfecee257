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
};

/** `--rich-parameter-file`. */
export const parameterFileOption: OptionSpec = {
  flags: '--rich-parameter-file <file>',
  description: 'A YAML or JSON map of rich parameter names to values',
};

/** The parameter values the user gave: the file's, then `--parameter`'s (which win). */
export async function givenParameters(options: Readonly<Record<string, unknown>>): Promise<Record<string, string>> {
  const file = stringOption(options, 'richParameterFile');
  return {
    ...(file === undefined ? {} : await readParameterFile(file)),
    ...parsePairs(listOption(options, 'parameter'), '--parameter'),
  };
}

/** What the values of a build are chosen from. */
export interface ParameterSources {
  /** The parameters of the version the build will use. */
  readonly parameters: readonly TemplateVersionParameter[];
  /** Values from flags and files. */
  readonly given: Readonly<Record<string, string>>;
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
 * the previous build's values and then to the defaults.
 */
export async function resolveParameters(context: CommandContext, sources: ParameterSources): Promise<NameValue[]> {
  const known = new Map(sources.parameters.map((p) => [p.name, p]));
  for (const name of Object.keys(sources.given)) {
    if (!known.has(name)) throw unknownParameter(name, [...known.keys()]);
  }
  const previous = new Map((sources.previous ?? []).map((entry) => [entry.name, entry.value]));
  const preset = new Map((sources.preset ?? []).map((entry) => [entry.name, entry.value]));
  const chosen: NameValue[] = [];
  const missing: TemplateVersionParameter[] = [];
  for (const parameter of [...sources.parameters].sort((a, b) => (a.order ?? 0) - (b.order ?? 0))) {
    const given = sources.given[parameter.name];
    const fixed = preset.get(parameter.name);
    if (fixed !== undefined && given !== undefined && fixed !== given) {
      context.io.stderr.write(`warning: the preset sets ${parameter.name}=${fixed}; --parameter ${parameter.name}=${given} is ignored.\n`);
    }
    const value = fixed ?? given;
    const before = parameter.ephemeral ? undefined : previous.get(parameter.name);
    if (value !== undefined) {
      checkValue(parameter, value, before, sources.previous !== undefined);
      chosen.push({ name: parameter.name, value });
    } else if (before === undefined && parameter.default_value === '') {
      missing.push(parameter);
    }
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
async function ask(context: CommandContext, parameter: TemplateVersionParameter): Promise<string> {
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
    const answer = normalizeAnswer(parameter, (await prompt(context.io, `${parameter.name}: `)).trim());
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

/** A map of parameter names to values; YAML, which JSON also is. Lists become JSON arrays. */
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
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value),
    ]),
  );
}
