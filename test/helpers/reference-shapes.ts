import { readFileSync } from 'node:fs';
import type { ReferenceTypes } from '../../scripts/reference-types.js';

/** The reference client's object types, as test/fixtures/reference-types.json holds them. */
const REFERENCE = JSON.parse(readFileSync(new URL('../fixtures/reference-types.json', import.meta.url), 'utf8')) as ReferenceTypes;

/**
 * Every way `value` differs from the reference's type of that name: missing fields, nulls where it
 * allows none, wrong kinds, values outside its enumerations, and fields it does not know, except
 * those in `ours` (fields Cove sends beyond the reference's, or newer than the fixture).
 */
export function referenceMismatches(value: unknown, typeName: string, ours: ReadonlySet<string> = new Set()): string[] {
  const fields = REFERENCE.objects[typeName];
  if (!fields) return [`the reference has no type ${typeName}`];
  const object = value as Record<string, unknown>;
  const out: string[] = [];
  for (const field of fields) {
    if (!(field.name in object)) {
      if (!field.optional) out.push(`${typeName}.${field.name}: missing`);
      continue;
    }
    const got = object[field.name];
    if (got === null) {
      if (!field.type.nullable) out.push(`${typeName}.${field.name}: null`);
      continue;
    }
    const kind = Array.isArray(got) ? 'array' : typeof got;
    if (field.type.kind !== 'any' && kind !== field.type.kind) out.push(`${typeName}.${field.name}: ${kind}, not ${field.type.kind}`);
    if (field.type.values && typeof got === 'string' && !field.type.values.includes(got)) {
      out.push(`${typeName}.${field.name}: "${got}" is not one of the reference's values`);
    }
    if (field.type.ref && kind === 'object') out.push(...referenceMismatches(got, field.type.ref, ours));
    if (field.type.items?.ref && Array.isArray(got)) {
      for (const item of got) out.push(...referenceMismatches(item, field.type.items.ref, ours));
    }
  }
  for (const name of Object.keys(object)) {
    if (!fields.some((field) => field.name === name) && !ours.has(name)) out.push(`${typeName}.${name}: unknown field`);
  }
  return out;
}
