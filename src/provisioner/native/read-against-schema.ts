import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import type { IntegerSchema, MapSchema, ObjectSchema, Schema, TextSchema } from './schema-nodes.js';

/**
 * The walker that checks a parsed YAML document against a schema (schema-nodes.ts). It works on the
 * YAML nodes rather than on plain values so that every problem names its line, and so that scalars
 * keep the text the author wrote (`3.10` stays `3.10` where a string is meant, instead of becoming
 * the number 3.1).
 */

/** Any scalar, kept as the text written: the items of a text-or-list, a shorthand's field by default. */
const text: TextSchema = { kind: 'text' };

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
