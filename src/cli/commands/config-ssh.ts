import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { singleExecutablePath } from '../../lib/single-executable.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { confirm } from '../confirm.js';
import { stringOption } from './templates-common.js';

const BLOCK_START = '# ------------START-COVE-----------';
const BLOCK_END = '# ------------END-COVE------------';
/** Environment the ProxyCommand must see to find the same saved session as this command. */
const PASSED_ENV = ['COVE_CONFIG_DIR', 'COVE_SECRET_STORE', 'XDG_CONFIG_HOME'] as const;

/** `cove config-ssh`: lets OpenSSH reach workspaces as `cove.WORKSPACE`. */
export const configSshCommand: CommandSpec = {
  name: 'config-ssh',
  summary: 'Add workspaces to your SSH config so "ssh cove.WORKSPACE" works',
  description:
    "Writes one marked block to ~/.ssh/config: a Host pattern for the deployment's prefix (cove.* by " +
    'default) whose ProxyCommand is "cove ssh --stdio". Running it again replaces the block; ' +
    'everything outside it is kept. New workspaces need no new run.',
  options: [
    { flags: '--ssh-config-file <path>', env: 'COVE_SSH_CONFIG_FILE', description: 'SSH config file to change', default: '~/.ssh/config' },
    {
      flags: '--ssh-option <option...>',
      env: 'COVE_SSH_CONFIG_OPTS',
      description: 'Extra "Key=Value" option for the workspace hosts (repeatable)',
    },
    { flags: '--dry-run', env: 'COVE_SSH_DRY_RUN', description: 'Show the change without writing it', default: false },
    { flags: '-y, --yes', description: 'Write without asking', default: false },
  ],
  examples: ['cove config-ssh -y', 'cove config-ssh --dry-run', 'ssh cove.dev'],
  async run(context, _args, options) {
    const client = await context.client();
    const deployment = await client.request<{ hostname_prefix: string; ssh_config_options: Record<string, string> }>(
      'GET',
      '/deployment/ssh',
    );
    const file = expandHome(stringOption(options, 'sshConfigFile') ?? '~/.ssh/config');
    const extra = parseOptions((options['sshOption'] as string[] | undefined) ?? []);
    const block = sshBlock({
      prefix: deployment.hostname_prefix || 'cove.',
      url: client.url,
      proxy: proxyCommand(context),
      options: { ...deployment.ssh_config_options, ...extra },
    });
    const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const after = replaceBlock(before, block);
    const host = `${deployment.hostname_prefix || 'cove.'}WORKSPACE`;
    if (after === before) {
      context.say(`${file} is up to date: "ssh ${host}" reaches your workspaces.`);
      return 0;
    }
    if (options['dryRun'] === true) {
      context.io.stdout.write(`Would write to ${file}:\n\n${block}\n`);
      return 0;
    }
    await confirm(context, `Write a Cove block to ${file}?`, {
      yes: options['yes'] === true,
      action: `Changing ${file}`,
      canceled: `${file} is unchanged`,
      hint: 'Pass -y to write it, or --dry-run to see the change.',
    });
    writeAtomically(file, after);
    context.say(`Updated ${file}: "ssh ${host}" now reaches your workspaces.`);
    return 0;
  },
};

/** The block: one Host pattern, the ProxyCommand, and options that suit a relayed, per-start host key. */
export function sshBlock(input: {
  readonly prefix: string;
  readonly url: string;
  readonly proxy: string;
  readonly options: Readonly<Record<string, string>>;
}): string {
  const options: Record<string, string> = {
    ConnectTimeout: '0',
    // The agent makes a new host key each time it starts; the relay, not the key, proves who answers.
    StrictHostKeyChecking: 'no',
    UserKnownHostsFile: '/dev/null',
    LogLevel: 'ERROR',
    ...input.options,
  };
  const lines = [
    BLOCK_START,
    '# Written by "cove config-ssh"; changes inside this block are replaced when it runs again.',
    `Host ${input.prefix}*`,
    `  ProxyCommand ${input.proxy} --url ${quote(input.url)} ssh --stdio --ssh-host-prefix ${quote(input.prefix)} %h`,
    ...Object.entries(options).map(([key, value]) => `  ${key} ${value}`),
    BLOCK_END,
  ];
  return lines.join('\n');
}

/** The config with the block in place of the previous one, or appended. */
export function replaceBlock(config: string, block: string): string {
  const start = config.indexOf(BLOCK_START);
  const end = config.indexOf(BLOCK_END);
  if (start >= 0 && end > start) return `${config.slice(0, start)}${block}${config.slice(end + BLOCK_END.length)}`;
  const separator = config === '' ? '' : config.endsWith('\n\n') ? '' : config.endsWith('\n') ? '\n' : '\n\n';
  return `${config}${separator}${block}\n`;
}

/** How OpenSSH should run this same cove, with the environment that finds the same session. */
function proxyCommand(context: CommandContext): string {
  const env = PASSED_ENV.flatMap((name) => (context.io.env[name] ? [`${name}=${quote(context.io.env[name] ?? '')}`] : []));
  const command = coveCommandLine().map(quote).join(' ');
  return env.length > 0 ? `/usr/bin/env ${env.join(' ')} ${command}` : command;
}

/**
 * The command line that runs this cove: the single executable itself, or node with the `bin/cove`
 * script of this checkout (found from this module, since tests run the CLI in-process).
 */
function coveCommandLine(): string[] {
  const single = singleExecutablePath();
  if (single !== undefined) return [single];
  const script = process.argv[1] ?? '';
  if (/(^|\/)cove$/.test(script) || script.endsWith('entry.js')) return [process.execPath, resolve(script)];
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'bin', 'cove');
    if (existsSync(candidate)) return [process.execPath, candidate];
    dir = dirname(dir);
  }
  return [process.execPath];
}

function parseOptions(values: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    values.map((value) => {
      const match = /^\s*([A-Za-z]+)\s*[= ]\s*(.+)$/.exec(value);
      if (!match?.[1] || !match[2])
        throw new CliError(`--ssh-option "${value}" is not an SSH option.`, {
          hint: 'Give it as Key=Value, e.g. --ssh-option ForwardAgent=yes.',
        });
      return [match[1], match[2].trim()];
    }),
  );
}

function quote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `"${text.replace(/(["\\$`])/g, '\\$1')}"`;
}

/** `~` as OpenSSH reads it: the home directory of the user's passwd entry, whatever $HOME says. */
function expandHome(path: string): string {
  const home = userInfo().homedir;
  return path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : resolve(path);
}

/** Writes through a temporary file so a crash never leaves half a config. */
function writeAtomically(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.cove-${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, file);
}
