import type { TemplateExample } from '../sdk/wire/index.js';

/** A file of a built-in example, with its mode (scripts are executable). */
export interface TemplateExampleFile {
  readonly path: string;
  readonly content: string;
  readonly mode: number;
}

/**
 * The template examples built into the binary. The native provisioner owns them and neither the
 * API nor the domain may import it, so the daemon hands them over through the API context.
 */
export interface TemplateExamples {
  /** As `GET /templates/examples` lists them, in order. */
  readonly list: readonly TemplateExample[];
  /** The files of the example with this id, in a stable order; undefined when there is none. */
  files(id: string): readonly TemplateExampleFile[] | undefined;
}
