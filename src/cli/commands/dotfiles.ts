import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, lstat, mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { confirm, yesOption } from '../confirm.js';

/** The install scripts looked for at the top of the repository (or in script/), first found wins. */
export const INSTALL_SCRIPTS = [
  'install.sh',
  'install',
  'bootstrap.sh',
  'bootstrap',
  'script/bootstrap',
  'setup.sh',
  'setup',
  'script/setup',
];

/** `cove dotfiles REPO`: clone (or pull) a dotfiles repository inside a workspace and install it. */
export const dotfilesCommand: CommandSpec = {
  name: 'dotfiles',
  summary: 'Clone a dotfiles repository and install it (inside a workspace)',
  description:
    'Run inside a workspace, typically from a start script. Clones the git repository into ' +
    'dotfiles/ under the cove config directory (~/.config/cove/dotfiles), or pulls it when it ' +
    'was cloned before (a different URL moves the old clone aside first). Then runs the first ' +
    `install script found (${INSTALL_SCRIPTS.join(', ')}); without one, links every dotfile at ` +
    'the top of the repository (.bashrc, .gitconfig...) into the home directory, moving a file ' +
    'already there to NAME.bak.',
  arguments: [{ name: 'repo', description: 'the git URL of the repository', required: true }],
  options: [
    {
      flags: '--symlink-dir <dir>',
      env: 'COVE_SYMLINK_DIR',
      description: 'Where to link the dotfiles (default: $COVE_SYMLINK_DIR, else the home directory)',
    },
    { flags: '-b, --branch <branch>', description: 'The branch to clone (default: the repository default)' },
    yesOption,
  ],
  examples: ['cove dotfiles -y https://github.com/alice/dotfiles', 'cove dotfiles git@github.com:alice/dotfiles.git --branch work -y'],
  async run(context, [repo = ''], options) {
    const yes = options['yes'] === true;
    const branch = typeof options['branch'] === 'string' ? options['branch'] : undefined;
    const home = context.io.env['HOME'] || homedir();
    const linkDir =
      (typeof options['symlinkDir'] === 'string' ? options['symlinkDir'] : undefined) ?? (context.io.env['COVE_SYMLINK_DIR'] || home);
    const dir = join(context.configDir, 'dotfiles');
    const urlFile = join(context.configDir, 'dotfilesurl');

    let cloned = await isDirectory(dir);
    if (cloned) {
      const previous = (await readFile(urlFile, 'utf8').catch(() => '')).trim();
      if (previous !== repo) {
        const backup = `${dir}_backup_${new Date().toISOString().replace(/[:.]/g, '-')}`;
        await confirm(context, `The dotfiles repository changed from "${previous}" to "${repo}". Move the old clone to ${backup}?`, {
          yes,
          action: 'Replacing the dotfiles clone',
          canceled: 'the dotfiles were left as they were',
        });
        await rename(dir, backup);
        context.say(`Moved the old dotfiles clone to ${backup}.`);
        cloned = false;
      }
    }

    const env = gitEnvironment(context);
    if (cloned) {
      await confirm(context, `Pull the latest of ${repo} into ${dir}?`, {
        yes,
        action: 'Pulling the dotfiles',
        canceled: 'nothing was pulled',
      });
      context.say(`Pulling ${repo} into ${dir}...`);
      const pulled = await run(context, 'git', ['pull', '--ff-only'], { cwd: dir, env });
      // An update that fails (offline, history rewritten) leaves the clone that is there in use.
      if (pulled !== 0) context.io.stderr.write('warning: could not update the dotfiles repository; installing the clone as it is.\n');
    } else {
      await confirm(context, `Clone ${repo} into ${dir}?`, { yes, action: 'Cloning the dotfiles', canceled: 'nothing was cloned' });
      await mkdir(context.configDir, { recursive: true, mode: 0o700 });
      context.say(`Cloning ${repo} into ${dir}...`);
      const args = ['clone', ...(branch ? ['--branch', branch] : []), '--', repo, dir];
      const code = await run(context, 'git', args, { cwd: context.configDir, env });
      if (code !== 0)
        throw new CliError(`git clone ${repo} failed (exit code ${code}).`, {
          hint: 'Check the URL, and that this workspace can reach it.',
        });
    }
    await writeFile(urlFile, `${repo}\n`, { mode: 0o600 });

    const script = await findInstallScript(dir);
    if (script) {
      await confirm(context, `Run the install script ${script}?`, {
        yes,
        action: 'Running the install script',
        canceled: 'the script was not run',
      });
      context.say(`Running ${script}...`);
      const executable = await access(join(dir, script), constants.X_OK).then(
        () => true,
        () => false,
      );
      // A script checked in without its executable bit still runs, through sh.
      const code = executable
        ? await run(context, join(dir, script), [], { cwd: dir, env })
        : await run(context, 'sh', [join(dir, script)], { cwd: dir, env });
      if (code !== 0) throw new CliError(`The install script ${script} failed (exit code ${code}).`);
      context.say('Dotfiles installed.');
      return 0;
    }

    const dotfiles = (await readdir(dir)).filter((name) => name.startsWith('.') && !name.startsWith('.git')).sort();
    if (dotfiles.length === 0) {
      context.say('No install script and no dotfiles found: nothing to do.');
      return 0;
    }
    await confirm(context, `No install script found. Link ${dotfiles.join(', ')} into ${linkDir}?`, {
      yes,
      action: 'Linking the dotfiles',
      canceled: 'nothing was linked',
    });
    await mkdir(linkDir, { recursive: true });
    for (const name of dotfiles) await linkDotfile(context, join(dir, name), join(linkDir, name));
    context.say('Dotfiles installed.');
    return 0;
  },
};

async function isDirectory(path: string): Promise<boolean> {
  const found = await stat(path).catch(() => undefined);
  if (found && !found.isDirectory()) throw new CliError(`${path} exists but is not a directory.`, { hint: 'Move it away and run again.' });
  return found !== undefined;
}

async function findInstallScript(dir: string): Promise<string | undefined> {
  for (const script of INSTALL_SCRIPTS) {
    const found = await stat(join(dir, script)).catch(() => undefined);
    if (found?.isFile()) return script;
  }
  return undefined;
}

/** Links `to` to `from`; a link already there is replaced, anything else is moved to `to.bak` first. */
async function linkDotfile(context: CommandContext, from: string, to: string): Promise<void> {
  const existing = await lstat(to).catch(() => undefined);
  if (existing?.isSymbolicLink()) {
    await rm(to);
  } else if (existing) {
    context.say(`Moving ${to} to ${to}.bak`);
    await rm(`${to}.bak`, { recursive: true, force: true });
    await rename(to, `${to}.bak`);
  }
  context.say(`Linking ${to} -> ${from}`);
  await symlink(from, to);
}

/**
 * The environment git and the install script run with: the command's own. Host keys of git
 * servers are accepted on first use, since a fresh workspace has never seen any.
 */
function gitEnvironment(context: CommandContext): NodeJS.ProcessEnv {
  const env = { ...process.env, ...context.io.env };
  const ssh = env['GIT_SSH_COMMAND'] || 'ssh';
  return { ...env, GIT_SSH_COMMAND: `${ssh} -o StrictHostKeyChecking=accept-new` };
}

/** Runs a program with its output passed through; resolves to its exit code. */
function run(
  context: CommandContext,
  program: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => context.io.stdout.write(chunk));
    child.stderr.on('data', (chunk: Buffer) => context.io.stderr.write(chunk));
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new CliError(`Cannot run ${program}: ${error.code ?? error.message}.`, {
          hint: program === 'git' ? 'Install git in the workspace.' : undefined,
        }),
      ),
    );
    child.once('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}
