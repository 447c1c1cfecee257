import { readdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ArchiveError } from '../../lib/archive/archive-error.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { orgOption, requireTemplate, resolveVersion, stringOption } from './templates-common.js';

/** `cove templates pull`: a version's files, extracted into a directory or as one archive. */
export const pullCommand: CommandSpec = {
  name: 'pull',
  summary: "Download a template version's files",
  description:
    "Download a template version's files and extract them into DEST (new or empty; default: the " +
    'template name), or with --tar or --zip write them as one archive to standard output (nothing else goes there), ' +
    'or to the file DEST.',
  arguments: [
    { name: 'template', description: 'Template name', required: true },
    { name: 'dest', description: 'Destination directory, or archive file with --tar/--zip (- or none: standard output)' },
  ],
  options: [
    orgOption,
    // Not --version: that is the global flag printing the CLI's own version.
    { flags: '--template-version <version>', description: 'active, latest, or a version name', default: 'active' },
    { flags: '--tar', description: 'Write a tar archive (to standard output, or to DEST) instead of extracting', default: false },
    { flags: '--zip', description: 'Write a zip archive (to standard output, or to DEST) instead of extracting', default: false },
  ],
  examples: [
    'cove templates pull python ./python',
    'cove templates pull python --tar > python.tar',
    'cove templates pull python python.zip --template-version latest --zip',
  ],
  async run(context, [name = '', dest], options) {
    const format = options['zip'] === true ? 'zip' : options['tar'] === true ? 'tar' : undefined;
    if (options['zip'] === true && options['tar'] === true) throw new CliError('Pass --tar or --zip, not both.');
    // Like the reference, an archive without a destination goes to standard output, so it can be
    // redirected or piped; a terminal would only show it as noise.
    const toStdout = format !== undefined && (dest === undefined || dest === '-');
    if (toStdout && context.io.stdout.isTTY)
      throw new CliError(`A ${format} archive is not written to a terminal.`, {
        hint: `Redirect it (cove templates pull ${name} --${format} > ${name}.${format}) or name a file to write it to.`,
      });
    const client = await context.client();
    const template = await requireTemplate(client, String(options['org']), name);
    const version = await resolveVersion(client, template, stringOption(options, 'templateVersion'));
    const archive = await client.downloadFile(version.job.file_id, format === 'zip' ? 'zip' : undefined);
    if (toStdout) {
      context.io.stdout.write(archive);
      // Standard output holds the archive alone: what was written is said on standard error.
      if (!context.json) context.io.stderr.write(`Pulled version "${version.name}" of ${template.name} as a ${format} archive.\n`);
      return 0;
    }
    const target = resolve(dest ?? template.name);
    if (format !== undefined) await writeFile(target, archive);
    else await extractInto(target, archive);
    if (context.json)
      printJson(context.io, { template: template.name, version: version.name, path: target, format: format ?? 'directory' });
    else context.say(`Pulled version "${version.name}" of ${template.name} into ${target}.`);
    return 0;
  },
};

async function extractInto(target: string, tar: Buffer): Promise<void> {
  try {
    if ((await readdir(target)).length > 0)
      throw new CliError(`${target} is not empty.`, { hint: 'Pull into a new or empty directory, so no file of yours is overwritten.' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw new CliError(`${target} is a file, not a directory.`);
    if (code !== 'ENOENT') throw error;
  }
  // The tar library loads here, not when the CLI starts: most commands never unpack an archive.
  const { extractTar } = await import('../../lib/archive/index.js');
  try {
    await extractTar(tar, target);
  } catch (error) {
    if (error instanceof ArchiveError) throw new CliError(`The archive of this version cannot be extracted safely: ${error.message}`);
    throw error;
  }
}
