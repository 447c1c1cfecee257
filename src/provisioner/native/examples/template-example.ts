import type { TemplateExample as WireTemplateExample } from '../../../sdk/wire/index.js';

/** A file of a built-in example with an explicit mode (scripts are executable). */
export interface TemplateExampleFile {
  readonly content: string;
  readonly mode: number;
}

/**
 * A template example built into the binary (`GET /templates/examples` lists its wire fields).
 * Creating a version with its `example_id` stores its files as the version's archive.
 *
 * Its `id` is a slug such as `local-shell`: the spec types it as a uuid, but the project's design
 * (and the reference system, whose swagger says uuid while it serves directory names) use the
 * slug; the spec's samples are illustrative. `markdown` is the example's README.md.
 */
export interface TemplateExample extends Readonly<Omit<WireTemplateExample, 'tags'>> {
  readonly tags: readonly string[];
  /** The provisioner the files are for. */
  readonly provisioner: 'native' | 'echo' | 'terraform';
  /** Path inside the archive → content; a plain string is a regular 0644 file. */
  readonly files: Readonly<Record<string, string | TemplateExampleFile>>;
}

/** The example's files with their modes, in a stable order (for archives and for writing to disk). */
export function exampleFiles(example: TemplateExample): { readonly path: string; readonly content: string; readonly mode: number }[] {
  return Object.entries(example.files)
    .map(([path, entry]) => (typeof entry === 'string' ? { path, content: entry, mode: 0o644 } : { path, ...entry }))
    .sort((a, b) => a.path.localeCompare(b.path));
}
