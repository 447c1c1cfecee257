import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import {
  ProvisionerError,
  type ExternalAuthRequirement,
  type ParameterOption,
  type Preset,
  type RichParameter,
  type TemplateIssue,
} from '../provisioner.js';
import { createScope } from './expand-resources.js';
import { InterpolationError, interpolate } from './interpolate.js';
import { defaultFormType, isIntegerText, parameterValueProblem } from '../../sdk/wire/parameter-value.js';
import { forEachExpandable } from './expandable-fields.js';
import type { RawParameter, RawResource, RawTemplate } from './raw-template.js';
import { childPath, readAgainstSchema, type SchemaIssue } from './read-against-schema.js';
import { HOOK_COMMANDS, RESOURCE_SCHEMA, TEMPLATE_SCHEMA } from './template-schema.js';
import type { VariableDeclaration } from './variables.js';

/** The file the native provisioner reads from a template directory. */
export const TEMPLATE_FILE_NAME = 'template.yaml';
const README_FILE_NAME = 'README.md';

/** A valid `template.yaml`, with defaults filled in; resources still hold their `${{ }}`. */
export interface TemplateFile {
  readonly description: string | undefined;
  readonly icon: string | undefined;
  /** README.md of the template directory, or empty. */
  readonly readme: string;
  readonly variables: readonly VariableDeclaration[];
  readonly parameters: readonly RichParameter[];
  readonly presets: readonly Preset[];
  readonly externalAuth: readonly ExternalAuthRequirement[];
  readonly resources: readonly RawResource[];
}

/**
 * Reads and validates `template.yaml` in an extracted template directory, with its README.md.
 * Every problem is collected; if there are any, throws one ProvisionerError whose message has one
 * line per problem (`template.yaml:12: parameters[1].type must be one of ...`) and whose `issues`
 * list them.
 */
export async function loadTemplateFile(directory: string): Promise<TemplateFile> {
  const text = await readTemplateText(directory);
  const { raw, lineOf } = parseTemplateText(text);
  const issues: SchemaIssue[] = [];
  const report = (field: string, message: string): void => {
    issues.push({ line: lineOf(field), field, message });
  };
  const file = normalize(raw, report);
  const resources = await checkFiles(directory, file.resources, report);
  checkReferences({ ...file, resources }, report);
  throwIfIssues(issues);
  return { ...file, resources, readme: await readOptional(join(directory, README_FILE_NAME)) };
}

/**
 * Parses the text of a `template.yaml` and checks it against the schema. Throws ProvisionerError
 * for YAML syntax errors and schema violations; the rules that need more than the schema are
 * loadTemplateFile's.
 */
export function parseTemplateText(text: string): { readonly raw: RawTemplate; readonly lineOf: (field: string) => number } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true });
  if (doc.errors.length > 0) {
    throwIfIssues(
      doc.errors.map((error) => ({
        line: error.linePos?.[0].line ?? 0,
        field: '',
        message: (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, ''),
      })),
    );
  }
  const reading = readAgainstSchema<RawTemplate>(doc, lineCounter, TEMPLATE_SCHEMA);
  throwIfIssues(reading.issues);
  return { raw: reading.value, lineOf: reading.lineOf };
}

async function readTemplateText(directory: string): Promise<string> {
  try {
    return await readFile(join(directory, TEMPLATE_FILE_NAME), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ProvisionerError(`the template has no ${TEMPLATE_FILE_NAME}`);
    throw error;
  }
}

async function readOptional(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

function throwIfIssues(found: readonly SchemaIssue[]): void {
  if (found.length === 0) return;
  const seen = new Set<string>();
  const issues: TemplateIssue[] = [];
  for (const issue of [...found].sort((a, b) => a.line - b.line)) {
    const key = `${issue.line}\0${issue.field}\0${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ file: TEMPLATE_FILE_NAME, ...issue });
  }
  const lines = issues.map((issue) => `${issue.file}:${issue.line}: ${issue.field === '' ? '' : `${issue.field} `}${issue.message}`);
  throw new ProvisionerError(lines.join('\n'), { issues });
}

type Report = (field: string, message: string) => void;

function normalize(raw: RawTemplate, report: Report): Omit<TemplateFile, 'readme'> {
  const variables = (raw.variables ?? []).map((variable, index): VariableDeclaration => {
    const type = variable.type ?? 'string';
    const problem = variable.default === undefined ? undefined : variableDefaultProblem(type, variable.default);
    if (problem) report(`variables[${index}].default`, problem);
    return {
      name: variable.name,
      description: variable.description ?? '',
      type,
      default_value: variable.default ?? '',
      required: variable.default === undefined,
      sensitive: variable.sensitive ?? false,
    };
  });
  checkUnique(
    variables.map((variable) => variable.name),
    'variables',
    'name',
    report,
  );
  const parameters = (raw.parameters ?? []).map((parameter, index) => toRichParameter(parameter, index, report));
  checkUnique(
    parameters.map((parameter) => parameter.name),
    'parameters',
    'name',
    report,
  );
  const presets = toPresets(raw, parameters, report);
  const externalAuth = (raw.external_auth ?? []).map((entry) => ({ id: entry.id, optional: entry.optional ?? false }));
  checkUnique(
    externalAuth.map((entry) => entry.id),
    'external_auth',
    'id',
    report,
  );
  const resources = raw.resources ?? [];
  checkResources(resources, report);
  return { description: raw.description, icon: raw.icon, variables, parameters, presets, externalAuth, resources };
}

function variableDefaultProblem(type: VariableDeclaration['type'], value: string): string | undefined {
  if (type === 'number' && (value.trim() === '' || !Number.isFinite(Number(value))))
    return `must be a number for a number variable (got "${value}")`;
  if (type === 'bool' && value !== 'true' && value !== 'false') return `must be true or false for a bool variable (got "${value}")`;
  return undefined;
}

/** Reports each name that an earlier entry of the same list already has. */
function checkUnique(names: readonly string[], list: string, key: string, report: Report): void {
  const first = new Map<string, number>();
  names.forEach((name, index) => {
    const earlier = first.get(name);
    if (earlier === undefined) first.set(name, index);
    else report(`${list}[${index}].${key}`, `"${name}" is already used by ${list}[${earlier}]`);
  });
}

function toRichParameter(raw: RawParameter, index: number, report: Report): RichParameter {
  const at = `parameters[${index}]`;
  const type = raw.type ?? 'string';
  const options: ParameterOption[] = (raw.options ?? []).map((option) => ({
    name: option.name,
    description: option.description ?? '',
    value: option.value,
    icon: option.icon ?? '',
  }));
  const validation = raw.validation ?? {};
  const parameter: RichParameter = {
    name: raw.name,
    display_name: raw.display_name ?? '',
    description: raw.description ?? '',
    type,
    form_type: raw.form_type ?? defaultFormType(type, options.length > 0),
    mutable: raw.mutable ?? false,
    ephemeral: raw.ephemeral ?? false,
    required: raw.default === undefined,
    default_value: raw.default ?? '',
    icon: raw.icon ?? '',
    // Without an explicit order, parameters are shown in the order the file lists them.
    order: raw.order ?? index,
    options,
    validation_min: validation.min ?? null,
    validation_max: validation.max ?? null,
    validation_monotonic: validation.monotonic ?? '',
    validation_regex: validation.regex ?? '',
    validation_error: validation.error ?? '',
  };
  const valid = checkParameterDefinition(parameter, at, report);
  // A default is only judged against rules that are themselves valid.
  if (valid && raw.default !== undefined && raw.default !== '') {
    const problem = parameterValueProblem(parameter, raw.default);
    if (problem) report(`${at}.default`, problem);
  }
  return parameter;
}

const FORM_TYPE_RULES: Readonly<Record<string, { readonly types: readonly RichParameter['type'][]; readonly needsOptions?: boolean }>> = {
  radio: { types: ['string', 'number', 'bool'], needsOptions: true },
  dropdown: { types: ['string', 'number', 'bool'], needsOptions: true },
  slider: { types: ['number'] },
  input: { types: ['string', 'number'] },
  textarea: { types: ['string'] },
  checkbox: { types: ['bool'] },
  switch: { types: ['bool'] },
  'multi-select': { types: ['list(string)'], needsOptions: true },
  'tag-select': { types: ['list(string)'] },
  error: { types: ['string', 'number', 'bool', 'list(string)'] },
};

/** Checks the parameter's own rules; returns false when they are too broken to judge a default. */
function checkParameterDefinition(parameter: RichParameter, at: string, report: Report): boolean {
  let valid = true;
  const problem = (field: string, message: string): void => {
    valid = false;
    report(`${at}.${field}`, message);
  };
  if (parameter.type !== 'number') {
    if (parameter.validation_min !== null) problem('validation.min', 'is only allowed for number parameters');
    if (parameter.validation_max !== null) problem('validation.max', 'is only allowed for number parameters');
    if (parameter.validation_monotonic !== '') problem('validation.monotonic', 'is only allowed for number parameters');
  }
  if (parameter.validation_min !== null && parameter.validation_max !== null && parameter.validation_min > parameter.validation_max) {
    problem('validation.min', `must not be greater than validation.max (${parameter.validation_min} > ${parameter.validation_max})`);
  }
  if (parameter.validation_regex !== '') {
    if (parameter.type !== 'string') problem('validation.regex', 'is only allowed for string parameters');
    else {
      try {
        new RegExp(parameter.validation_regex);
      } catch (error) {
        problem('validation.regex', `is not a valid regular expression: ${(error as Error).message}`);
      }
    }
  }
  parameter.options.forEach((option, index) => {
    const optionProblem = optionValueProblem(parameter.type, option.value);
    if (optionProblem) problem(`options[${index}].value`, optionProblem);
  });
  checkUnique(
    parameter.options.map((option) => option.name),
    `${at}.options`,
    'name',
    report,
  );
  checkUnique(
    parameter.options.map((option) => option.value),
    `${at}.options`,
    'value',
    report,
  );
  if (parameter.ephemeral && !parameter.mutable) problem('ephemeral', 'requires mutable: true');
  if (parameter.ephemeral && parameter.required) problem('ephemeral', 'requires a default');
  const rule = FORM_TYPE_RULES[parameter.form_type];
  if (rule && !rule.types.includes(parameter.type))
    problem('form_type', `"${parameter.form_type}" is not allowed for a ${parameter.type} parameter`);
  else if (rule?.needsOptions && parameter.options.length === 0) problem('form_type', `"${parameter.form_type}" needs options`);
  return valid;
}

function optionValueProblem(type: RichParameter['type'], value: string): string | undefined {
  if (type === 'number' && !isIntegerText(value)) return `must be an integer for a number parameter (got "${value}")`;
  if (type === 'bool' && value !== 'true' && value !== 'false') return `must be true or false for a bool parameter (got "${value}")`;
  return undefined;
}

function toPresets(raw: RawTemplate, parameters: readonly RichParameter[], report: Report): Preset[] {
  const presets = (raw.presets ?? []).map((preset, index): Preset => {
    const values = Object.entries(preset.parameters ?? {});
    for (const [name, value] of values) {
      const field = childPath(`presets[${index}].parameters`, name);
      const parameter = parameters.find((candidate) => candidate.name === name);
      if (!parameter) report(field, 'is not a parameter of this template');
      else {
        const problem = parameterValueProblem(parameter, value);
        if (problem) report(field, problem);
      }
    }
    return { name: preset.name, default: preset.default ?? false, parameters: values.map(([name, value]) => ({ name, value })) };
  });
  checkUnique(
    presets.map((preset) => preset.name),
    'presets',
    'name',
    report,
  );
  const defaults = presets.flatMap((preset, index) => (preset.default ? [index] : []));
  for (const index of defaults.slice(1))
    report(`presets[${index}].default`, `only one preset may be the default (presets[${defaults[0]}] already is)`);
  return presets;
}

function checkResources(resources: readonly RawResource[], report: Report): void {
  checkUnique(
    resources.map((resource) => resource.name),
    'resources',
    'name',
    report,
  );
  const agentNames = new Map<string, string>();
  resources.forEach((resource, r) => {
    const at = `resources[${r}]`;
    checkUnique(
      (resource.metadata ?? []).map((entry) => entry.key),
      `${at}.metadata`,
      'key',
      report,
    );
    (resource.agents ?? []).forEach((agent, a) => {
      const agentAt = `${at}.agents[${a}]`;
      const earlier = agentNames.get(agent.name);
      if (earlier !== undefined)
        report(`${agentAt}.name`, `"${agent.name}" is already used by ${earlier}; agent names are unique within a template`);
      else agentNames.set(agent.name, agentAt);
      checkUnique(
        (agent.apps ?? []).map((app) => app.slug),
        `${agentAt}.apps`,
        'slug',
        report,
      );
      checkUnique(
        (agent.metadata ?? []).map((item) => item.key),
        `${agentAt}.metadata`,
        'key',
        report,
      );
      (agent.apps ?? []).forEach((app, p) => {
        const appAt = `${agentAt}.apps[${p}]`;
        if (app.url !== undefined && app.command !== undefined) report(appAt, 'sets both url and command; an app has one or the other');
        if (app.url === undefined) {
          if (app.external) report(`${appAt}.external`, 'requires a url');
          if (app.subdomain) report(`${appAt}.subdomain`, 'requires a url');
          if (app.healthcheck) report(`${appAt}.healthcheck`, 'requires the app to have a url');
        }
      });
    });
  });
}

/**
 * Checks the files the template names (hook commands) and inlines scripts written as `./file`:
 * such a script's text becomes the file's content, taken literally (its `${{` are escaped).
 */
async function checkFiles(directory: string, resources: readonly RawResource[], report: Report): Promise<RawResource[]> {
  const out: RawResource[] = [];
  for (const [r, resource] of resources.entries()) {
    if (resource.type === 'hook') {
      for (const command of HOOK_COMMANDS) {
        const path = resource[command];
        if (path === undefined) continue;
        const problem = await archiveFileProblem(directory, path);
        if (problem) report(`resources[${r}].${command}`, problem);
      }
    }
    const agents = [];
    for (const agent of resource.agents ?? []) {
      const scripts = [];
      for (const script of agent.scripts ?? []) {
        const content = await inlinedScript(directory, script.script);
        scripts.push(content === undefined ? script : { ...script, script: content.replaceAll('${{', () => '$${{') });
      }
      agents.push(agent.scripts ? { ...agent, scripts } : agent);
    }
    out.push(resource.agents ? { ...resource, agents } : resource);
  }
  return out;
}

/** Paths the template names must be relative, stay inside the directory, and be files. */
async function archiveFileProblem(directory: string, path: string): Promise<string | undefined> {
  const full = insideDirectory(directory, path);
  if (full === undefined) return `must be a path inside the template (got "${path}")`;
  try {
    if (!(await stat(full)).isFile()) return `"${path}" is not a file`;
  } catch {
    return `"${path}" does not exist in the template`;
  }
  return undefined;
}

function insideDirectory(directory: string, path: string): string | undefined {
  if (isAbsolute(path)) return undefined;
  const full = resolve(directory, path);
  const rel = relative(resolve(directory), full);
  return rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? undefined : full;
}

async function inlinedScript(directory: string, script: string): Promise<string | undefined> {
  const trimmed = script.trim();
  if (!/^\.\/\S+$/.test(trimmed)) return undefined;
  const full = insideDirectory(directory, trimmed);
  if (full === undefined) return undefined;
  try {
    return (await stat(full)).isFile() ? await readFile(full, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

/** Expands every resource with the defaults, so that unknown references and cycles surface at import. */
function checkReferences(file: Omit<TemplateFile, 'readme'>, report: Report): void {
  const values = {
    parameters: Object.fromEntries(file.parameters.map((parameter) => [parameter.name, parameter.default_value])),
    variables: Object.fromEntries(file.variables.map((variable) => [variable.name, variable.default_value])),
    workspace: { id: '', name: '', owner: '', owner_id: '', transition: 'start', start_count: '1' },
  };
  const scope = createScope(file.resources, values);
  file.resources.forEach((resource, index) => {
    forEachExpandable(resource, RESOURCE_SCHEMA, childPath('resources', index), (text, field) => {
      try {
        interpolate(text, scope, field);
      } catch (error) {
        if (!(error instanceof InterpolationError)) throw error;
        report(error.field, error.problem);
      }
    });
  });
}
