/**
 * The small declarative schema language `template.yaml` is described in: one node per field, which
 * the walker (read-against-schema.ts) checks a YAML document against and expandable-fields.ts uses to
 * find the text that `${{ }}` expands.
 */

/** A text field. Any scalar is accepted and kept as the text written. */
export interface TextSchema {
  readonly kind: 'text';
  /** Identifiers and paths that `${{ }}` must not touch. */
  readonly literal?: boolean;
  readonly pattern?: { readonly regex: RegExp; readonly describe: string };
}

export interface IntegerSchema {
  readonly kind: 'integer';
  readonly min?: number;
}

export interface BooleanSchema {
  readonly kind: 'boolean';
}

export interface EnumSchema {
  readonly kind: 'enum';
  readonly values: readonly string[];
}

/** A scalar kept as text, or a sequence of scalars kept as a JSON array of their texts. */
export interface TextOrListSchema {
  readonly kind: 'text-or-list';
}

export interface ObjectSchema {
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

export interface ListSchema {
  readonly kind: 'list';
  readonly items: Schema;
}

/** A mapping with keys the author chooses (environment variables, preset values). */
export interface MapSchema {
  readonly kind: 'map';
  readonly values: Schema;
}

/** One node of the template schema. */
export type Schema = TextSchema | IntegerSchema | BooleanSchema | EnumSchema | TextOrListSchema | ObjectSchema | ListSchema | MapSchema;
