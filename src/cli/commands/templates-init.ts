import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { canPrompt, prompt } from '../prompt.js';

/** The examples live with the native provisioner, which the CLI loads only in the command that needs it. */
type Examples = typeof import('../../provisioner/native/examples/index.js');
type TemplateExample = Examples['templateExamples'][number];

const EXAMPLE_COLUMNS = [
  { heading: 'id', value: (e: TemplateExample) => e.id },
  { heading: 'provisioner', value: (e: TemplateExample) => e.provisioner },
  { heading: 'description', value: (e: TemplateExample) => e.description },
];

/** `cove templates init`: a built-in example, written out to edit and push. Needs no deployment. */
export const initCommand: CommandSpec = {
  name: 'init',
  summary: 'Write a built-in example template into a directory',
  arguments: [{ name: 'directory', description: 'Where to write it; new or empty (default: the example id)' }],
  options: [{ flags: '--id <example>', description: 'Example id (without it, the examples are listed or offered)' }],
  columns: EXAMPLE_COLUMNS,
  examples: ['cove templates init --id local-shell', 'cove templates init --id docker ./my-docker-template'],
  async run(context, [directory], options) {
    const examples = await import('../../provisioner/native/examples/index.js');
    const example = await chooseExample(context, examples, typeof options['id'] === 'string' ? options['id'] : undefined);
    const target = resolve(directory ?? example.id);
    await requireEmptyDirectory(target);
    const files = examples.exampleFiles(example);
    for (const file of files) {
      const path = join(target, ...file.path.split('/'));
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.content, { flag: 'wx' });
      // The umask filters the mode given at creation; chmod sets the example's own bits.
      await chmod(path, file.mode);
    }
    if (context.json) {
      printJson(context.io, { id: example.id, directory: target, files: files.map((f) => f.path) });
      return 0;
    }
    context.say(`Wrote the "${example.name}" example to ${target}:`);
    for (const file of files) context.say(`  ${file.path}`);
    const shown = directory ?? example.id;
    context.say(`Edit it, then create the template with "cove templates push ${shown.includes(' ') ? JSON.stringify(shown) : shown}".`);
    return 0;
  },
};

/** The example `--id` names; else asks on a terminal; else lists them and says how to choose. */
async function chooseExample(context: CommandContext, examples: Examples, id: string | undefined): Promise<TemplateExample> {
  const { findTemplateExample, templateExamples } = examples;
  if (id !== undefined) {
    const example = findTemplateExample(id);
    if (!example)
      throw new CliError(`There is no example "${id}".`, { hint: `Choose one of: ${templateExamples.map((e) => e.id).join(', ')}.` });
    return example;
  }
  if (!canPrompt(context.io)) {
    context.printData(templateExamples, EXAMPLE_COLUMNS);
    throw new CliError('Choose an example with --id.', {
      hint: `For example: cove templates init --id ${templateExamples[0]?.id ?? 'local-shell'}`,
    });
  }
  templateExamples.forEach((example, index) => context.io.stderr.write(`  ${index + 1}. ${example.id}: ${example.description}\n`));
  for (;;) {
    const answer = (await prompt(context.io, 'Example (number or id): ')).trim();
    const example = findTemplateExample(answer) ?? templateExamples[Number(answer) - 1];
    if (answer !== '' && example) return example;
    context.io.stderr.write(`"${answer}" is none of the examples.\n`);
  }
}

async function requireEmptyDirectory(path: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new CliError(`${path} is a file, not a directory.`);
    throw error;
  }
  if (entries.length > 0)
    throw new CliError(`${path} is not empty.`, { hint: 'Choose a new or empty directory, so no file of yours is overwritten.' });
}
