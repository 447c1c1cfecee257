import { readFileSync } from 'node:fs';
import type { License } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { printData, printJson } from '../output.js';
import { askUntilValid, canPrompt } from '../prompt.js';
import { readStdin } from '../read-stdin.js';

const claim = (license: License, name: string) => {
  const value = license.claims[name];
  return typeof value === 'number' ? new Date(value * 1000).toISOString() : '';
};
const LICENSE_COLUMNS = [
  { heading: 'id', value: (l: License) => String(l.id) },
  { heading: 'uuid', value: (l: License) => l.uuid },
  { heading: 'account', value: (l: License) => String(l.claims['account_id'] ?? '') },
  { heading: 'expires', value: (l: License) => claim(l, 'license_expires') },
  { heading: 'uploaded', value: (l: License) => l.uploaded_at },
];

/** What a license token looks like (a compact JWT); any other argument names a file. */
const LICENSE_TOKEN = /^[\w-]+\.[\w-]+\.[\w-]*$/;

function readLicenseFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read the license file "${path}": ${(error as NodeJS.ErrnoException).code ?? String(error)}.`, {
      hint: 'Give the path of a file holding the license, or the license token itself.',
    });
  }
}

/**
 * The license to add: `--license`; the file `--file` or the argument names (`-`: standard input);
 * the argument itself when it is a token; else pasted on a terminal, or read from piped input,
 * as the reference takes it.
 */
async function licenseText(
  context: CommandContext,
  argument: string | undefined,
  options: Readonly<Record<string, unknown>>,
): Promise<string> {
  const given = typeof options['license'] === 'string' ? options['license'] : undefined;
  const file = typeof options['file'] === 'string' ? options['file'] : undefined;
  if (given !== undefined && (file !== undefined || argument !== undefined))
    throw new CliError('Give the license one way: --license, --file or the argument.');
  if (given !== undefined) return given;
  const source = file ?? (argument !== undefined && !LICENSE_TOKEN.test(argument) ? argument : undefined);
  if (source === '-') return fromStdin(context);
  if (source !== undefined) return readLicenseFile(source);
  if (argument !== undefined) return argument;
  if (canPrompt(context.io))
    return askUntilValid(
      context.io,
      'Paste the license: ',
      (typed) => (LICENSE_TOKEN.test(typed) ? undefined : 'That is not a license token.'),
      {
        secret: true,
      },
    );
  return fromStdin(context);
}

async function fromStdin(context: CommandContext): Promise<string> {
  const text = (await readStdin(context.io)).toString('utf8').trim();
  if (text === '')
    throw new CliError('Standard input held no license.', {
      hint: 'Pipe the license in ("cove licenses add - < cove.license"), or give it as an argument or with --file.',
    });
  return text;
}

/** `cove licenses`: add, list and delete the deployment's licenses. */
export const licensesCommand: CommandSpec = {
  name: 'licenses',
  aliases: ['license'],
  summary: 'Add, list and delete licenses',
  subcommands: [
    {
      name: 'add',
      summary: 'Add a license (the signed token, as an argument, from a file or from standard input)',
      arguments: [{ name: 'license', description: 'The license token, or a file holding it ("-": standard input)' }],
      options: [
        { flags: '-f, --file <path>', description: 'Read the license from a file ("-": standard input)' },
        { flags: '-l, --license <token>', description: 'The license token' },
      ],
      examples: [
        'cove licenses add ./cove.license',
        'cove licenses add --file ./cove.license',
        'cove licenses add eyJhbGciOi...',
        'cove licenses add --file - < cove.license',
        'vault read -field=license secret/cove | cove licenses add',
      ],
      async run(context, [argument], options) {
        const text = await licenseText(context, argument, options);
        const license = await (await context.client()).addLicense(text.trim());
        if (context.json) return printJson(context.io, license);
        context.say(`Added license ${license.id} (${license.uuid}).`);
      },
    },
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'List licenses',
      async run(context) {
        printData(context.io, context.global.output, await (await context.client()).licenses(), LICENSE_COLUMNS);
      },
    },
    {
      name: 'delete',
      aliases: ['rm'],
      summary: 'Delete a license by id',
      arguments: [{ name: 'id', description: 'License id (from "cove licenses list")', required: true }],
      async run(context, [id = '']) {
        await (await context.client()).deleteLicense(id);
        if (context.json) return printJson(context.io, { deleted: id });
        context.say(`Deleted license ${id}.`);
      },
    },
  ],
};

/** `cove features`: what the licenses entitle the deployment to. */
export const featuresCommand: CommandSpec = {
  name: 'features',
  summary: 'Show licensed features',
  subcommands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'List features with their entitlement, limits and use',
      async run(context) {
        const entitlements = await (await context.client()).entitlements();
        if (context.json) return printJson(context.io, entitlements);
        const rows = Object.entries(entitlements.features).map(([name, state]) => ({ name, ...state }));
        printData(context.io, 'table', rows, [
          { heading: 'name', value: (row) => row.name },
          { heading: 'entitlement', value: (row) => row.entitlement },
          { heading: 'enabled', value: (row) => String(row.enabled) },
          { heading: 'limit', value: (row) => (row.limit === undefined ? '' : String(row.limit)) },
          { heading: 'actual', value: (row) => (row.actual === undefined ? '' : String(row.actual)) },
        ]);
        for (const warning of entitlements.warnings) context.io.stderr.write(`warning: ${warning}\n`);
      },
    },
  ],
};
