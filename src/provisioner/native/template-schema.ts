import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

/**
 * The shape of `template.yaml`, as a small declarative schema, and the walker that checks a parsed
 * YAML document against it. The walker works on the YAML nodes rather than on plain values so that
 * every problem names its line, and so that scalars keep the text the author wrote (`3.10` stays
 * `3.10` where a string is meant, instead of becoming the number 3.1).
 */

/** A text field. Any scalar is accepted and kept as the text written. */
interface TextSchema {
  readonly kind: 'text';
  /** Identifiers and paths that `${{ }}` must not touch. */
  readonly literal?: boolean;
  readonly pattern?: { readonly regex: RegExp; readonly describe: string };
}

interface IntegerSchema {
  readonly kind: 'integer';
  readonly min?: number;
}

interface BooleanSchema {
  readonly kind: 'boolean';
}

interface EnumSchema {
  readonly kind: 'enum';
  readonly values: readonly string[];
}

/** A scalar kept as text, or a sequence of scalars kept as a JSON array of their texts. */
interface TextOrListSchema {
  readonly kind: 'text-or-list';
}

interface ObjectSchema {
  readonly kind: 'object';
  readonly fields: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  /** A scalar given in place of the mapping stands for this one field (`- github` for `- {id: github}`). */
  readonly shorthand?: string;
  /** The field whose value selects extra fields from `variants`. */
  readonly discriminator?: string;
  readonly variants?: Readonly<
    Record<string, { readonly fields: Readonly<Record<string, Schema>>; readonly required?: readonly string[] }>
  >;
}

interface ListSchema {
  readonly kind: 'list';
  readonly items: Schema;
}

/** A mapping with keys the author chooses (environment variables, preset values). */
interface MapSchema {
  readonly kind: 'map';
  readonly values: Schema;
}

/** One node of the template schema. */
export type Schema = TextSchema | IntegerSchema | BooleanSchema | EnumSchema | TextOrListSchema | ObjectSchema | ListSchema | MapSchema;

/** Resource names, agent names and app slugs. */
export const SLUG_PATTERN = /^[a-z0-9](-?[a-z0-9])*$/;
/** Parameter and variable names: usable in a `${{ }}` reference as they are. */
export const IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;

const text: TextSchema = { kind: 'text' };
const literal: TextSchema = { kind: 'text', literal: true };
const bool: BooleanSchema = { kind: 'boolean' };
const slug: TextSchema = {
  kind: 'text',
  literal: true,
  pattern: { regex: SLUG_PATTERN, describe: 'must be lowercase letters and digits with single hyphens between them' },
};
const identifier: TextSchema = {
  kind: 'text',
  literal: true,
  pattern: { regex: IDENTIFIER_PATTERN, describe: 'must start with a letter or _ and hold only letters, digits, _ and -' },
};
const nonNegative: IntegerSchema = { kind: 'integer', min: 0 };
const list = (items: Schema): ListSchema => ({ kind: 'list', items });
const map = (values: Schema): MapSchema => ({ kind: 'map', values });
const oneOf = (...values: string[]): EnumSchema => ({ kind: 'enum', values });

/** Parameter types, in the order error messages list them. */
export const PARAMETER_TYPES = ['string', 'number', 'bool', 'list(string)'] as const;
/** Form types the reference knows for rich parameters. */
export const FORM_TYPES = [
  'radio',
  'slider',
  'input',
  'dropdown',
  'checkbox',
  'switch',
  'multi-select',
  'tag-select',
  'textarea',
  'error',
] as const;
/** Compute types of the native provisioner. */
export const RESOURCE_TYPES = ['process', 'docker', 'hook', 'directory'] as const;
/** Built-in apps an agent may show. */
export const DISPLAY_APPS = ['vscode', 'vscode_insiders', 'web_terminal', 'ssh_helper', 'port_forwarding_helper'] as const;
/** Hook commands, in the order a workspace's life runs them. */
export const HOOK_COMMANDS = ['create', 'start', 'stop', 'delete'] as const;

const variableSchema: ObjectSchema = {
  kind: 'object',
  required: ['name'],
  fields: { name: identifier, description: text, type: oneOf('string', 'number', 'bool'), default: text, sensitive: bool },
};

const optionSchema: ObjectSchema = {
  kind: 'object',
  required: ['name', 'value'],
  fields: { name: text, description: text, value: text, icon: text },
};

const parameterSchema: ObjectSchema = {
  kind: 'object',
  required: ['name'],
  fields: {
    name: identifier,
    display_name: text,
    description: text,
    type: oneOf(...PARAMETER_TYPES),
    form_type: oneOf(...FORM_TYPES),
    default: { kind: 'text-or-list' },
    mutable: bool,
    ephemeral: bool,
    icon: text,
    order: { kind: 'integer' },
    options: list(optionSchema),
    validation: {
      kind: 'object',
      fields: {
        min: { kind: 'integer' },
        max: { kind: 'integer' },
        monotonic: oneOf('increasing', 'decreasing'),
        regex: text,
        error: text,
      },
    },
  },
};

const presetSchema: ObjectSchema = {
  kind: 'object',
  required: ['name'],
  fields: { name: text, default: bool, parameters: map(text) },
};

const externalAuthSchema: ObjectSchema = {
  kind: 'object',
  required: ['id'],
  shorthand: 'id',
  fields: { id: literal, optional: bool },
};

const scriptSchema: ObjectSchema = {
  kind: 'object',
  required: ['script'],
  fields: {
    display_name: text,
    script: text,
    cron: text,
    run_on_start: bool,
    run_on_stop: bool,
    start_blocks_login: bool,
    timeout: nonNegative,
    log_path: text,
  },
};

const appSchema: ObjectSchema = {
  kind: 'object',
  required: ['slug'],
  fields: {
    slug,
    display_name: text,
    url: text,
    command: text,
    icon: text,
    external: bool,
    subdomain: bool,
    share: oneOf('owner', 'authenticated', 'organization', 'public'),
    hidden: bool,
    open_in: oneOf('slim-window', 'tab'),
    group: text,
    healthcheck: {
      kind: 'object',
      required: ['url'],
      fields: { url: text, interval: { kind: 'integer', min: 1 }, threshold: { kind: 'integer', min: 1 } },
    },
  },
};

const agentSchema: ObjectSchema = {
  kind: 'object',
  required: ['name'],
  fields: {
    name: slug,
    dir: text,
    env: map(text),
    os: oneOf('linux', 'darwin', 'windows'),
    arch: oneOf('amd64', 'arm64', 'armv7', '386'),
    connection_timeout: nonNegative,
    troubleshooting_url: text,
    display_apps: list(oneOf(...DISPLAY_APPS)),
    startup_script_behavior: oneOf('blocking', 'non-blocking'),
    instance_id: text,
    scripts: list(scriptSchema),
    apps: list(appSchema),
  },
};

const metadataSchema: ObjectSchema = {
  kind: 'object',
  required: ['key'],
  fields: { key: literal, value: text, sensitive: bool },
};

const agents = list(agentSchema);

/** One entry of `resources`: the common fields plus those of its compute type. */
export const RESOURCE_SCHEMA: ObjectSchema = {
  kind: 'object',
  required: ['name', 'type'],
  discriminator: 'type',
  fields: { name: slug, type: oneOf(...RESOURCE_TYPES), hide: bool, icon: text, daily_cost: nonNegative, metadata: list(metadataSchema) },
  variants: {
    directory: { fields: { path: text }, required: ['path'] },
    process: { fields: { agents } },
    docker: { fields: { image: text, volumes: list(text), env: map(text), agents }, required: ['image'] },
    hook: {
      fields: { create: literal, start: literal, stop: literal, delete: literal, env: map(text), agents },
      required: ['start'],
    },
  },
};

/** The whole file. */
export const TEMPLATE_SCHEMA: ObjectSchema = {
  kind: 'object',
  fields: {
    description: text,
    icon: text,
    variables: list(variableSchema),
    parameters: list(parameterSchema),
    presets: list(presetSchema),
    external_auth: list(externalAuthSchema),
    resources: list(RESOURCE_SCHEMA),
  },
};

/** `template.yaml` as the walker returns it: the schema's shape, every scalar already checked. */
export interface RawTemplate {
  readonly description?: string;
  readonly icon?: string;
  readonly variables?: readonly RawVariable[];
  readonly parameters?: readonly RawParameter[];
  readonly presets?: readonly RawPreset[];
  readonly external_auth?: readonly { readonly id: string; readonly optional?: boolean }[];
  readonly resources?: readonly RawResource[];
}

export interface RawVariable {
  readonly name: string;
  readonly description?: string;
  readonly type?: 'string' | 'number' | 'bool';
  readonly default?: string;
  readonly sensitive?: boolean;
}

export interface RawParameter {
  readonly name: string;
  readonly display_name?: string;
  readonly description?: string;
  readonly type?: (typeof PARAMETER_TYPES)[number];
  readonly form_type?: string;
  readonly default?: string;
  readonly mutable?: boolean;
  readonly ephemeral?: boolean;
  readonly icon?: string;
  readonly order?: number;
  readonly options?: readonly { readonly name: string; readonly description?: string; readonly value: string; readonly icon?: string }[];
  readonly validation?: {
    readonly min?: number;
    readonly max?: number;
    readonly monotonic?: 'increasing' | 'decreasing';
    readonly regex?: string;
    readonly error?: string;
  };
}

export interface RawPreset {
  readonly name: string;
  readonly default?: boolean;
  readonly parameters?: Readonly<Record<string, string>>;
}

export interface RawScript {
  readonly display_name?: string;
  readonly script: string;
  readonly cron?: string;
  readonly run_on_start?: boolean;
  readonly run_on_stop?: boolean;
  readonly start_blocks_login?: boolean;
  readonly timeout?: number;
  readonly log_path?: string;
}

export interface RawApp {
  readonly slug: string;
  readonly display_name?: string;
  readonly url?: string;
  readonly command?: string;
  readonly icon?: string;
  readonly external?: boolean;
  readonly subdomain?: boolean;
  readonly share?: 'owner' | 'authenticated' | 'organization' | 'public';
  readonly hidden?: boolean;
  readonly open_in?: 'slim-window' | 'tab';
  readonly group?: string;
  readonly healthcheck?: { readonly url: string; readonly interval?: number; readonly threshold?: number };
}

export interface RawAgent {
  readonly name: string;
  readonly dir?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly os?: string;
  readonly arch?: string;
  readonly connection_timeout?: number;
  readonly troubleshooting_url?: string;
  readonly display_apps?: readonly string[];
  readonly startup_script_behavior?: 'blocking' | 'non-blocking';
  /** The cloud instance the agent runs on, for instance identity authentication. */
  readonly instance_id?: string;
  readonly scripts?: readonly RawScript[];
  readonly apps?: readonly RawApp[];
}

/** A resource entry; the fields beyond the common ones depend on `type`. */
export interface RawResource {
  readonly name: string;
  readonly type: (typeof RESOURCE_TYPES)[number];
  readonly hide?: boolean;
  readonly icon?: string;
  readonly daily_cost?: number;
  readonly metadata?: readonly { readonly key: string; readonly value?: string; readonly sensitive?: boolean }[];
  readonly agents?: readonly RawAgent[];
  /** directory */
  readonly path?: string;
  /** docker */
  readonly image?: string;
  readonly volumes?: readonly string[];
  /** docker and hook */
  readonly env?: Readonly<Record<string, string>>;
  /** hook */
  readonly create?: string;
  readonly start?: string;
  readonly stop?: string;
  readonly delete?: string;
}

/** A problem the walker found: the field path, its line, and what is wrong with it. */
export interface SchemaIssue {
  readonly line: number;
  readonly field: string;
  readonly message: string;
}

/** The walker's answer: the plain value (undefined where invalid), its problems, and field lines. */
export interface SchemaReading<T> {
  readonly value: T;
  readonly issues: readonly SchemaIssue[];
  /** The line of a field path such as `parameters[1].default`, or of its nearest ancestor. */
  readonly lineOf: (field: string) => number;
}

/** `parent.key`, `parent[index]`, or `parent["odd key"]` for keys that are not plain words. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) return `${parent}[${JSON.stringify(key)}]`;
  return parent === '' ? key : `${parent}.${key}`;
}

interface Walk {
  readonly doc: Document;
  readonly lineCounter: LineCounter;
  readonly issues: SchemaIssue[];
  readonly lines: Map<string, number>;
}

/**
 * Checks a parsed document against a schema. Unknown fields, wrong scalar types, values outside an
 * enum and missing required fields are all reported, each with its line; the returned value holds
 * only what was valid, so callers must not use it when there are issues.
 */
export function readAgainstSchema<T>(doc: Document, lineCounter: LineCounter, schema: Schema): SchemaReading<T> {
  const walk: Walk = { doc, lineCounter, issues: [], lines: new Map() };
  const contents = doc.contents as Node | null;
  // An empty file is an empty template, not an error.
  const value = contents === null ? {} : read(walk, contents, schema, '', 1);
  const lineOf = (field: string): number => {
    for (let path = field; ; path = parentPath(path)) {
      const line = walk.lines.get(path);
      if (line !== undefined) return line;
      if (path === '') return 1;
    }
  };
  return { value: value as T, issues: walk.issues, lineOf };
}

function parentPath(path: string): string {
  const cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
  return cut <= 0 ? '' : path.slice(0, cut);
}

function lineOfNode(walk: Walk, node: Node, fallback: number): number {
  const start = node.range?.[0];
  return start === undefined ? fallback : walk.lineCounter.linePos(start).line;
}

function fail(walk: Walk, line: number, field: string, message: string): undefined {
  walk.issues.push({ line, field, message });
  return undefined;
}

function read(walk: Walk, raw: Node | null, schema: Schema, path: string, parentLine: number): unknown {
  if (raw === null) return fail(walk, parentLine, path, 'must have a value');
  const node = isAlias(raw) ? (raw.resolve(walk.doc) as Node | undefined) : raw;
  const line = node ? lineOfNode(walk, raw, parentLine) : parentLine;
  walk.lines.set(path, line);
  if (!node) return fail(walk, line, path, 'refers to an unknown anchor');
  switch (schema.kind) {
    case 'text':
      return readText(walk, node, schema, path, line);
    case 'integer':
      return readInteger(walk, node, schema, path, line);
    case 'boolean':
      if (isScalar(node) && typeof node.value === 'boolean') return node.value;
      return fail(walk, line, path, 'must be true or false');
    case 'enum': {
      const value = isScalar(node) ? scalarText(node) : undefined;
      if (value !== undefined && schema.values.includes(value)) return value;
      return fail(walk, line, path, `must be one of ${schema.values.join(', ')}`);
    }
    case 'text-or-list':
      if (isSeq(node)) {
        const items = node.items.map(
          (item, index) => read(walk, item as Node | null, text, childPath(path, index), line) as string | undefined,
        );
        return items.every((item) => item !== undefined) ? JSON.stringify(items) : undefined;
      }
      return readText(walk, node, text, path, line);
    case 'list':
      if (!isSeq(node)) return fail(walk, line, path, 'must be a list');
      return node.items.map((item, index) => read(walk, item as Node | null, schema.items, childPath(path, index), line));
    case 'map':
      return readMap(walk, node, schema, path, line);
    case 'object':
      return readObject(walk, node, schema, path, line);
  }
}

function scalarText(node: Node): string | undefined {
  if (!isScalar(node)) return undefined;
  const value = node.value;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    // Plain scalars keep their source so `3.10` or `0755` mean what was typed.
    return node.source ?? String(value);
  }
  return undefined;
}

function readText(walk: Walk, node: Node, schema: TextSchema, path: string, line: number): string | undefined {
  const value = scalarText(node);
  if (value === undefined) return fail(walk, line, path, 'must be a single value (text, number or boolean)');
  if (schema.pattern && !schema.pattern.regex.test(value)) return fail(walk, line, path, `${schema.pattern.describe} (got "${value}")`);
  return value;
}

function readInteger(walk: Walk, node: Node, schema: IntegerSchema, path: string, line: number): number | undefined {
  const value = isScalar(node) ? node.value : undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) return fail(walk, line, path, 'must be an integer');
  if (schema.min !== undefined && value < schema.min) return fail(walk, line, path, `must be at least ${schema.min}`);
  return value;
}

function* pairs(walk: Walk, node: Node, path: string, line: number): Generator<{ key: string; value: Node | null; line: number }> {
  if (!isMap(node)) return;
  for (const pair of node.items) {
    const keyNode = pair.key as Node | null;
    const key = keyNode ? scalarText(keyNode) : undefined;
    const keyLine = keyNode ? lineOfNode(walk, keyNode, line) : line;
    if (key === undefined) {
      fail(walk, keyLine, path === '' ? 'template' : path, 'has a key that is not a plain value');
      continue;
    }
    yield { key, value: pair.value as Node | null, line: keyLine };
  }
}

function readMap(walk: Walk, node: Node, schema: MapSchema, path: string, line: number): Record<string, unknown> | undefined {
  if (!isMap(node)) return fail(walk, line, path, 'must be a mapping of names to values');
  const out: Record<string, unknown> = {};
  for (const pair of pairs(walk, node, path, line)) {
    const field = childPath(path, pair.key);
    if (pair.value === null) {
      walk.lines.set(field, pair.line);
      fail(walk, pair.line, field, 'must have a value');
      continue;
    }
    out[pair.key] = read(walk, pair.value, schema.values, field, pair.line);
  }
  return out;
}

function readObject(walk: Walk, node: Node, schema: ObjectSchema, path: string, line: number): Record<string, unknown> | undefined {
  if (schema.shorthand && isScalar(node)) {
    const value = read(walk, node, schema.fields[schema.shorthand] ?? text, childPath(path, schema.shorthand), line);
    return value === undefined ? undefined : { [schema.shorthand]: value };
  }
  if (!isMap(node)) return fail(walk, line, path === '' ? 'template' : path, 'must be a mapping of fields');
  const { fields, required } = fieldsOf(walk, node, schema);
  const out: Record<string, unknown> = {};
  for (const pair of pairs(walk, node, path, line)) {
    const field = childPath(path, pair.key);
    walk.lines.set(field, pair.line);
    const fieldSchema = fields[pair.key];
    if (!fieldSchema) {
      fail(walk, pair.line, field, `is not a known field${knownFieldsHint(fields)}`);
      continue;
    }
    // A field written with no value (`icon:`) counts as left out.
    if (pair.value === null || (isScalar(pair.value) && pair.value.value === null)) continue;
    out[pair.key] = read(walk, pair.value, fieldSchema, field, pair.line);
  }
  for (const name of required) {
    if (!(name in out)) fail(walk, line, childPath(path, name), 'is required');
  }
  return out;
}

function fieldsOf(walk: Walk, node: Node, schema: ObjectSchema): { fields: Readonly<Record<string, Schema>>; required: readonly string[] } {
  const base = { fields: schema.fields, required: schema.required ?? [] };
  if (!schema.discriminator || !schema.variants || !isMap(node)) return base;
  const tag = node.get(schema.discriminator, true) as Node | undefined;
  const variant = tag ? schema.variants[scalarText(tag) ?? ''] : undefined;
  // Without a valid type only the common fields are checked; the type itself is reported.
  if (!variant) return { fields: { ...schema.fields, ...allVariantFields(schema) }, required: base.required };
  return { fields: { ...schema.fields, ...variant.fields }, required: [...base.required, ...(variant.required ?? [])] };
}

function allVariantFields(schema: ObjectSchema): Record<string, Schema> {
  return Object.assign({}, ...Object.values(schema.variants ?? {}).map((variant) => variant.fields)) as Record<string, Schema>;
}

function knownFieldsHint(fields: Readonly<Record<string, Schema>>): string {
  return ` (known fields: ${Object.keys(fields).join(', ')})`;
}

/**
 * Calls `visit` for every text field of `value` that `${{ }}` expands (not identifiers such as
 * names, slugs and hook paths), with its field path. `value` must have passed the schema.
 */
export function forEachExpandable(value: unknown, schema: Schema, path: string, visit: (text: string, field: string) => void): void {
  mapExpandable(value, schema, path, (text, field) => {
    visit(text, field);
    return text;
  });
}

/**
 * Returns a copy of `value` with every text field that `${{ }}` expands replaced by `transform`'s
 * answer. Identifiers, numbers and booleans are copied as they are.
 */
export function mapExpandable(value: unknown, schema: Schema, path: string, transform: (text: string, field: string) => string): unknown {
  if (value === undefined || value === null) return value;
  switch (schema.kind) {
    case 'text':
      return schema.literal || typeof value !== 'string' ? value : transform(value, path);
    case 'list':
      return (value as readonly unknown[]).map((item, index) => mapExpandable(item, schema.items, childPath(path, index), transform));
    case 'map':
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([key, item]) => [
          key,
          mapExpandable(item, schema.values, childPath(path, key), transform),
        ]),
      );
    case 'object': {
      const record = value as Record<string, unknown>;
      const tag = schema.discriminator ? record[schema.discriminator] : undefined;
      const variant = typeof tag === 'string' ? schema.variants?.[tag] : undefined;
      const fields = { ...schema.fields, ...variant?.fields };
      return Object.fromEntries(
        Object.entries(record).map(([key, item]) => {
          const fieldSchema = fields[key];
          return [key, fieldSchema ? mapExpandable(item, fieldSchema, childPath(path, key), transform) : item];
        }),
      );
    }
    default:
      return value;
  }
}
