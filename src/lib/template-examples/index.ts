import { dockerExample } from './docker.js';
import { localShellExample } from './local-shell.js';
import { pythonExample } from './python.js';
import type { TemplateExample } from './template-example.js';
import { vmHooksExample } from './vm-hooks.js';

export { exampleFiles, type TemplateExample, type TemplateExampleFile } from './template-example.js';

/** The template examples built into the binary, in the order the examples page lists them. */
export const templateExamples: readonly TemplateExample[] = [localShellExample, pythonExample, dockerExample, vmHooksExample];

/** The built-in example with this id, or undefined. */
export function findTemplateExample(id: string): TemplateExample | undefined {
  return templateExamples.find((example) => example.id === id);
}
