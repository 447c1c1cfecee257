/**
 * Writes test/fixtures/reference-types.json: the facts of the reference dashboard client's wire
 * types (each type's name, its fields' names, their JSON kinds, and whether a field may be left
 * out (`field?:`) or be `null` (`| null`)), read from that client's generated types file
 * (`typesGenerated.ts`) whose path is the one argument:
 *
 *   node --import tsx scripts/reference-types.ts path/to/typesGenerated.ts [source label]
 *
 * test/api/reference-wire.test.ts holds the daemon's answers against the fixture, so the test needs
 * nothing outside the repository. Only facts are kept; nothing of the file's text is.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';

/** A JSON value's shape as the reference's types describe it. */
export interface WireType {
  readonly kind: 'string' | 'number' | 'boolean' | 'array' | 'object' | 'any';
  /** The only strings allowed, for a union of string literals. */
  readonly values?: readonly string[];
  /** `| null` in the reference's type. */
  readonly nullable?: true;
  /** The elements of an array. */
  readonly items?: WireType;
  /** An object of a named type of the list. */
  readonly ref?: string;
  /** The values of a map (`Record<string, V>`). */
  readonly map?: WireType;
}

export interface WireField {
  readonly name: string;
  /** `name?:` in the reference's type: its server leaves the field out when it has no value. */
  readonly optional?: true;
  readonly type: WireType;
}

export interface ReferenceTypes {
  readonly source: string;
  /** Object types by name, their inherited fields included. */
  readonly objects: Readonly<Record<string, readonly WireField[]>>;
}

/** Splits `text` at top-level occurrences of `separator` (outside <>, (), {} and quotes). */
function splitTop(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    if (quoted) continue;
    if (c === '<' || c === '(' || c === '{' || c === '[') depth++;
    else if (c === '>' || c === ')' || c === '}' || c === ']') depth--;
    else if (depth === 0 && c === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/** A named type's shape before names are resolved: `ref` may still name an alias. */
function parseType(expression: string): WireType {
  let text = expression.trim().replace(/^readonly\s+/, '');
  const alternatives = splitTop(text, '|');
  if (alternatives.length > 1) {
    const nullable = alternatives.includes('null');
    const rest = alternatives.filter((part) => part !== 'null' && part !== 'undefined');
    let type: WireType;
    if (rest.every((part) => /^"[^"]*"$/.test(part))) type = { kind: 'string', values: rest.map((part) => part.slice(1, -1)) };
    else if (rest.length === 1) type = parseType(rest[0] ?? '');
    else {
      const kinds = new Set(rest.map((part) => parseType(part).kind));
      type = { kind: kinds.size === 1 ? ([...kinds][0] ?? 'any') : 'any' };
    }
    return nullable ? { ...type, nullable: true } : type;
  }
  if (text.endsWith('[]')) return { kind: 'array', items: parseType(text.slice(0, -2)) };
  if (text.startsWith('(') && text.endsWith(')')) return parseType(text.slice(1, -1));
  const record = /^Record<\s*[^,]+,(.*)>$/s.exec(text);
  if (record) return { kind: 'object', map: parseType(record[1] ?? '') };
  if (/^"[^"]*"$/.test(text)) return { kind: 'string', values: [text.slice(1, -1)] };
  text = text.replace(/<.*>$/s, '');
  if (text === 'string' || text === 'number' || text === 'boolean') return { kind: text };
  if (text === 'unknown' || text === 'any' || text === 'object') return { kind: text === 'object' ? 'object' : 'any' };
  if (text.startsWith('{')) return { kind: 'object' };
  return { kind: 'object', ref: text };
}

/** Reads the generated types file: its interfaces (with what they extend) and its aliases. */
export function readReferenceTypes(source: string, label: string): ReferenceTypes {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const interfaces = new Map<string, { readonly parents: string[]; readonly fields: WireField[]; readonly generic: string[] }>();
  const aliases = new Map<string, WireType>();
  for (const match of code.matchAll(/^export interface (\w+)(<[^{]*>)?(?:\s+extends\s+([^{]+))?\s*\{([\s\S]*?)^\}/gm)) {
    const [, name = '', generics = '', parents = '', body = ''] = match;
    const generic = [...generics.matchAll(/[<,]\s*(\w+)/g)].map((g) => g[1] ?? '');
    const fields: WireField[] = [];
    for (const line of body.matchAll(/^\s*readonly\s+("?[\w-]+"?)(\?)?:\s*(.+?);\s*$/gm)) {
      const [, rawName = '', optional, typeText = ''] = line;
      fields.push({ name: rawName.replace(/"/g, ''), ...(optional ? { optional: true as const } : {}), type: parseType(typeText) });
    }
    interfaces.set(name, { parents: splitTop(parents, ',').map((p) => p.replace(/<.*>$/s, '')), fields, generic });
  }
  for (const match of code.matchAll(/^export type (\w+)(?:<[^=]*>)?\s*=\s*([\s\S]*?);\s*$/gm)) {
    aliases.set(match[1] ?? '', parseType(match[2] ?? ''));
  }
  const resolve = (type: WireType, generic: readonly string[], seen: ReadonlySet<string> = new Set()): WireType => {
    let out: WireType = type;
    if (type.ref !== undefined && !interfaces.has(type.ref)) {
      const alias = aliases.get(type.ref);
      const target = alias && !seen.has(type.ref) ? resolve(alias, generic, new Set([...seen, type.ref])) : { kind: 'any' as const };
      out = { ...target, ...(type.nullable || target.nullable ? { nullable: true as const } : {}) };
      if (generic.includes(type.ref) || !alias) out = { kind: 'any', ...(type.nullable ? { nullable: true as const } : {}) };
    }
    return {
      ...out,
      ...(out.items ? { items: resolve(out.items, generic, seen) } : {}),
      ...(out.map ? { map: resolve(out.map, generic, seen) } : {}),
    };
  };
  const flatten = (name: string): WireField[] => {
    const entry = interfaces.get(name);
    if (!entry) return [];
    const inherited = entry.parents.flatMap(flatten);
    const own = entry.fields.map((field) => ({ ...field, type: resolve(field.type, entry.generic) }));
    return [...inherited.filter((field) => !own.some((o) => o.name === field.name)), ...own];
  };
  const objects: Record<string, WireField[]> = {};
  for (const name of [...interfaces.keys()].sort()) objects[name] = flatten(name);
  return { source: label, objects };
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const [path, label] = process.argv.slice(2);
  if (!path) {
    console.error('usage: node --import tsx scripts/reference-types.ts <typesGenerated.ts> [source label]');
    process.exit(2);
  }
  const types = readReferenceTypes(readFileSync(path, 'utf8'), label ?? 'site/src/api/typesGenerated.ts');
  const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'reference-types.json');
  // Formatted as prettier would, so that `prettier --check .` holds for the generated file.
  writeFileSync(out, await format(JSON.stringify(types), { ...(await resolveConfig(out)), filepath: out }));
  console.log(`${Object.keys(types.objects).length} object types written to ${out}`);
}
