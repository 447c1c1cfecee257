import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { CoveClient } from '../../sdk/client.js';
import type { CreateTemplateVersionRequest, Template, TemplateVersion } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { followJob } from '../follow-job.js';
import { printJson } from '../output.js';
import { confirm } from '../confirm.js';
import { tarTemplateDirectory } from '../template-archive.js';
import { booleanOption, findTemplate, listOption, orgOption, parsePairs, repeatableOptions, stringOption } from './templates-common.js';

const PROVISIONERS = ['native', 'echo', 'terraform'] as const;
type ProvisionerName = (typeof PROVISIONERS)[number];

/** `cove templates push`: upload a directory as a new version, then create the template or make the version active. */
export const pushCommand: CommandSpec = {
  name: 'push',
  summary: 'Create or update a template from a directory',
  description:
    'Upload a template directory as a new version and follow its import. A new template is created ' +
    'with it; an existing one gets it as its active version unless --activate=false. The provisioner ' +
    'is detected from the files (template.yaml: native, echo.json: echo, *.tf: terraform). With ' +
    '-d/--directory, the argument is the template name, as the reference takes it ' +
    '("cove templates push NAME -d DIR").',
  arguments: [
    {
      name: 'directory',
      description: 'Template directory (default: the current directory); with -d, the template name',
    },
  ],
  options: [
    orgOption,
    { flags: '-d, --directory <dir>', description: 'Template directory; the argument, if any, is then the template name' },
    { flags: '--name <template>', description: "Template name (default: the directory's name)" },
    { flags: '--version-name <name>', description: 'Name of the new version (default: a generated one)' },
    { flags: '--variables-file <file>', description: 'A YAML or JSON map of template variable values' },
    { flags: '-m, --message <text>', description: 'What changed in this version', default: 'Uploaded from the CLI' },
    { flags: '--activate [bool]', description: 'Make the new version active (--activate=false uploads it only)', default: true },
    { flags: '--no-activate', description: 'Upload the version without making it active' },
    { flags: '--provisioner <kind>', description: 'native, echo or terraform (default: detected from the files)' },
    { flags: '-y, --yes', description: 'Create a new template without asking', default: false },
  ],
  configure: repeatableOptions([
    { flags: '--variable <name=value>', description: 'A template variable value (repeatable; wins over --variables-file)' },
    { flags: '--var <name=value>', description: 'The same as --variable (repeatable)' },
    { flags: '--provisioner-tag <key=value>', description: 'Run the import on a provisioner with this tag (repeatable)' },
  ]),
  examples: [
    'cove templates push ./my-template -y',
    'cove templates push . --name python --variable base_dir=/srv/ws --message "Python 3.13"',
    'cove templates push python -d ./python --var base_dir=/srv/ws --variables-file vars.yaml -y',
    'cove templates push ./gpu --provisioner-tag pool=gpu --activate=false',
  ],
  async run(context, [argument], options) {
    const organization = String(options['org']);
    const { dir, name } = directoryAndName(argument, options);
    const activate = booleanOption(options, 'activate', '--activate') !== false;
    const request = {
      ...(await versionRequest(options)),
      tags: parsePairs(listOption(options, 'provisionerTag'), '--provisioner-tag'),
    };
    const client = await context.client();
    const existing = await findTemplate(client, organization, name);
    if (!existing) await confirmCreate(context, name, organization, options['yes'] === true);

    const tar = await tarTemplateDirectory(dir);
    context.say(`Uploading ${dir} (${formatBytes(tar.length)})...`);
    const { id: fileId } = await client.uploadFile(tar);
    const created = await client.createTemplateVersion(organization, {
      ...request,
      storage_method: 'file',
      file_id: fileId,
      ...(existing ? { template_id: existing.id } : {}),
    });
    const version = await followImport(context, client, created);
    if (version.job.status !== 'succeeded') {
      if (context.json) printJson(context.io, version);
      throw importFailed(version);
    }
    const template = existing ?? (await client.createTemplate(organization, { name, template_version_id: version.id }));
    if (existing && activate) await client.promoteTemplateVersion(existing.id, version.id);
    if (context.json) printJson(context.io, version);
    else context.say(finalLine(template, version, existing === undefined || activate));
    return 0;
  },
};

/** Everything of the version request that comes from flags and files alone. */
async function versionRequest(options: Readonly<Record<string, unknown>>): Promise<CreateTemplateVersionRequest> {
  const provisioner = stringOption(options, 'provisioner');
  if (provisioner !== undefined && !PROVISIONERS.includes(provisioner as ProvisionerName)) {
    throw new CliError(`--provisioner must be one of ${PROVISIONERS.join(', ')}, not "${provisioner}".`);
  }
  const variablesFile = stringOption(options, 'variablesFile');
  const variables = {
    ...(variablesFile === undefined ? {} : await readVariablesFile(variablesFile)),
    ...variablePairs(listOption(options, 'variable'), '--variable'),
    ...variablePairs(listOption(options, 'var'), '--var'),
  };
  const versionName = stringOption(options, 'versionName');
  return {
    message: String(options['message'] ?? ''),
    ...(versionName ? { name: versionName } : {}),
    ...(provisioner ? { provisioner: provisioner as ProvisionerName } : {}),
    user_variable_values: Object.entries(variables).map(([key, value]) => ({ name: key, value })),
  };
}

/**
 * The directory to upload and the template's name. The argument is the directory, as it always
 * was, unless -d names the directory: then it is the template name, as in the reference.
 */
function directoryAndName(argument: string | undefined, options: Readonly<Record<string, unknown>>): { dir: string; name: string } {
  const directory = stringOption(options, 'directory');
  const named = stringOption(options, 'name');
  if (directory === undefined) {
    const dir = resolve(argument ?? '.');
    return { dir, name: named ?? basename(dir) };
  }
  if (argument !== undefined && named !== undefined && argument !== named)
    throw new CliError(`The template is named twice: "${argument}" and --name "${named}".`, { hint: 'Give one of them.' });
  const dir = resolve(directory);
  return { dir, name: argument ?? named ?? basename(dir) };
}

/** `NAME=VALUE` pairs of --variable or --var; a pair without `=` is refused, naming the flag. */
function variablePairs(pairs: readonly string[], flag: string): Record<string, string> {
  const bad = pairs.find((pair) => pair.indexOf('=') <= 0);
  if (bad !== undefined)
    throw new CliError(`${flag} "${bad}" is not NAME=VALUE.`, {
      hint: `Write ${flag} NAME=VALUE, e.g. ${flag} region=eu; for many values, --variables-file FILE with a YAML map.`,
    });
  return parsePairs(pairs, flag);
}

/** A map of variable names to values; YAML, which JSON also is. Non-string values are written as text. */
async function readVariablesFile(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read the variables file ${path}: ${(error as Error).message}`);
  }
  const { parse } = await import('yaml');
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new CliError(`The variables file ${path} is not valid YAML or JSON: ${(error as Error).message}`);
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new CliError(`The variables file ${path} must hold a map of names to values.`);
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value),
    ]),
  );
}

/** Asked before the upload, so nobody waits for an import to be told no. Without a terminal, proceeds. */
function confirmCreate(context: CommandContext, name: string, organization: string, yes: boolean): Promise<void> {
  return confirm(context, `Template "${name}" does not exist in ${organization}. Create it?`, {
    yes,
    action: `Creating template "${name}"`,
    canceled: 'nothing was uploaded',
    undoable: true,
  });
}

/** Follows the import job to its end, printing its log by stage (see followJob). */
export async function followImport(context: CommandContext, client: CoveClient, version: TemplateVersion): Promise<TemplateVersion> {
  return followJob(context, version, {
    noun: 'import',
    read: () => client.templateVersion(version.id),
    follow: (onLog) => client.followTemplateVersionLogs(version.id, onLog),
    logsAfter: (after) => client.templateVersionLogs(version.id, after === undefined ? {} : { after }),
  });
}

function importFailed(version: TemplateVersion): CliError {
  const { job } = version;
  if (job.status === 'canceled') return new CliError(`The import of version "${version.name}" was canceled.`);
  const code = job.error_code ? ` [${job.error_code}]` : '';
  return new CliError(`The import of version "${version.name}" failed${code}: ${job.error || 'no reason was given'}`, {
    hint:
      job.error_code === 'REQUIRED_TEMPLATE_VARIABLES'
        ? 'Give each required variable a value with --variable name=value or --variables-file FILE.'
        : 'The build log above shows where it went wrong.',
  });
}

function finalLine(template: Template, version: TemplateVersion, active: boolean): string {
  if (active) return `Template "${template.name}" is now at version "${version.name}".`;
  return `Uploaded version "${version.name}" of template "${template.name}"; it is not active (promote it with "cove templates versions promote ${template.name} ${version.name}").`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
