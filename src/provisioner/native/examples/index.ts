import { dockerExample } from './docker.js';
import { localShellExample } from './local-shell.js';
import { pythonExample } from './python.js';
import { exampleFiles, type TemplateExample } from './template-example.js';
import { vmHooksExample } from './vm-hooks.js';

export { exampleFiles, type TemplateExample, type TemplateExampleFile } from './template-example.js';

/** The template examples built into the binary, in the order the examples page lists them. */
export const templateExamples: readonly TemplateExample[] = [localShellExample, pythonExample, dockerExample, vmHooksExample];

/** The built-in example with this id, or undefined. */
export function findTemplateExample(id: string): TemplateExample | undefined {
  return templateExamples.find((example) => example.id === id);
}

/** The examples as the daemon hands them to the API: their wire listing, and their files by id. */
export const builtInTemplateExamples = {
  list: templateExamples.map(({ id, name, description, icon, markdown, url, tags }) => ({
    id,
    name,
    description,
    icon,
    markdown,
    url,
    tags: [...tags],
  })),
  files(id: string): ReturnType<typeof exampleFiles> | undefined {
    const example = findTemplateExample(id);
    return example && exampleFiles(example);
  },
};
