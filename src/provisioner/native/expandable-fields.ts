import { childPath } from './read-against-schema.js';
import type { Schema } from './schema-nodes.js';

// The text fields `${{ }}` expands, found by walking a checked value beside its schema.

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
