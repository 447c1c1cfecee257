import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CliUser } from '../helpers/run-cli.js';

/** Commands run inside a workspace, which need no deployment: `cove stat` and `cove dotfiles`. */
describe('cove stat and cove dotfiles', () => {
  const work = mkdtempSync(join(tmpdir(), 'cove-inside-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  describe('cove stat', () => {
    const user = new CliUser({ HOME: work });

    it('prints host CPU, memory and home disk, and the container columns, as a table and as JSON', async () => {
      const table = await user.run('stat');
      assert.equal(table.code, 0, table.stderr);
      const [heading = '', row = ''] = table.stdout.split('\n');
      assert.match(heading, /^HOST CPU +HOST MEMORY +HOME DISK +CONTAINER CPU +CONTAINER MEMORY$/);
      assert.match(row, /^\d+\.\d\/\d+ cores \(\d+%\) +\d+\.\d\/[\d.]+ GiB \(\d+%\) +\d+\.\d\/[\d.]+ GiB \(\d+%\) /);

      const json = await user.run('stat', '-o', 'json');
      assert.equal(json.code, 0, json.stderr);
      const [stats] = JSON.parse(json.stdout) as Record<string, { used: number; total: number | null; unit: string } | null>[];
      assert.deepEqual(Object.keys(stats ?? {}), ['host_cpu', 'host_memory', 'home_disk', 'container_cpu', 'container_memory']);
      assert.equal(stats?.['host_cpu']?.unit, 'cores');
      assert.ok((stats?.['host_memory']?.total ?? 0) > 0);
      assert.ok((stats?.['home_disk']?.used ?? -1) >= 0);
    });

    it('measures one thing with cpu, mem and disk, in the unit asked for', async () => {
      assert.match((await user.run('stat', 'cpu', '--host')).stdout, /^\d+\.\d\/\d+ cores \(\d+%\)\n$/);
      const mem = await user.run('stat', 'mem', '--host', '--prefix', 'Mi', '-o', 'json');
      assert.equal(mem.code, 0, mem.stderr);
      assert.equal((JSON.parse(mem.stdout) as { unit: string }).unit, 'MiB');
      assert.match((await user.run('stat', 'disk', '--path', work)).stdout, /^\d+\.\d\/[\d.]+ GiB \(\d+%\)\n$/);
      const wrong = await user.run('stat', 'disk', '--prefix', 'Pi');
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /"Pi" is not a unit prefix/);
    });
  });

  describe('cove dotfiles', () => {
    const home = join(work, 'home');
    const config = join(work, 'config');
    const user = new CliUser({ HOME: home, PATH: process.env['PATH'] ?? '' });

    /** A bare repository made from the files given, as a git server would hold it. */
    function repository(name: string, files: Readonly<Record<string, string>>, executable: readonly string[] = []): string {
      const source = join(work, `${name}-source`);
      mkdirSync(source, { recursive: true });
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(source, path, '..'), { recursive: true });
        writeFileSync(join(source, path), text);
      }
      for (const path of executable) chmodSync(join(source, path), 0o755);
      const git = (cwd: string, ...args: string[]) =>
        execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], {
          cwd,
          stdio: 'ignore',
        });
      git(source, 'init', '-q');
      git(source, 'add', '.');
      git(source, 'commit', '-q', '-m', 'dotfiles');
      const bare = join(work, `${name}.git`);
      git(work, 'clone', '-q', '--bare', source, bare);
      return bare;
    }

    before(() => mkdirSync(home, { recursive: true }));

    it('clones the repository and links its dotfiles into the home directory, keeping files already there', async () => {
      const repo = repository('links', {
        '.bashrc': 'alias ll="ls -l"\n',
        '.vimrc': 'set number\n',
        '.gitignore': 'x\n',
        README: 'mine\n',
      });
      writeFileSync(join(home, '.bashrc'), 'the old bashrc\n');
      const unconfirmed = await user.run('dotfiles', repo);
      assert.equal(unconfirmed.code, 1);
      assert.match(unconfirmed.stderr, /Cloning the dotfiles needs confirmation/);

      const installed = await user.run('dotfiles', repo, '-y');
      assert.equal(installed.code, 0, installed.stderr);
      const clone = join(user.configDir, 'dotfiles');
      assert.equal(readFileSync(join(clone, 'README'), 'utf8'), 'mine\n');
      assert.equal(readlinkSync(join(home, '.bashrc')), join(clone, '.bashrc'));
      assert.equal(readlinkSync(join(home, '.vimrc')), join(clone, '.vimrc'));
      assert.equal(readFileSync(join(home, '.bashrc.bak'), 'utf8'), 'the old bashrc\n');
      assert.equal(existsSync(join(home, '.gitignore')), false, 'git files stay in the clone');
      assert.equal(existsSync(join(home, 'README')), false, 'only dotfiles are linked');
      assert.match(installed.stdout, /Dotfiles installed\.\n$/);

      // Run again: the clone is pulled, and the links are made again without backing up links.
      const again = await user.run('dotfiles', repo, '-y');
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /Pulling /);
      assert.equal(readFileSync(join(home, '.bashrc.bak'), 'utf8'), 'the old bashrc\n');
      assert.ok(lstatSync(join(home, '.bashrc')).isSymbolicLink());
    });

    it('moves the old clone aside for another repository, and runs its install script instead of linking', async () => {
      const repo = repository(
        'scripted',
        {
          'script/setup': '#!/bin/sh\necho "setup ran in $(pwd)" > "$HOME/setup-ran"\n',
          'install.sh': 'echo "install ran" > "$HOME/install-ran"\n',
          '.profile': 'never linked\n',
        },
        ['script/setup'],
      );
      const installed = await user.run('dotfiles', repo, '-y');
      assert.equal(installed.code, 0, installed.stderr);
      // install.sh comes first in the list; checked in without its executable bit, it runs through sh.
      assert.equal(readFileSync(join(home, 'install-ran'), 'utf8'), 'install ran\n');
      assert.equal(existsSync(join(home, 'setup-ran')), false);
      assert.equal(existsSync(join(home, '.profile')), false, 'an install script replaces the linking');
      assert.match(installed.stdout, /Moved the old dotfiles clone to .*dotfiles_backup_/);
      assert.equal(readFileSync(join(user.configDir, 'dotfilesurl'), 'utf8'), `${repo}\n`);
    });

    it('links into --symlink-dir from the branch asked for, and fails clearly on a missing repository', async () => {
      const other = new CliUser({ HOME: home, PATH: process.env['PATH'] ?? '', COVE_CONFIG_DIR: config });
      const repo = repository('branched', { '.zshrc': 'main branch\n' });
      execFileSync('git', ['--git-dir', repo, 'branch', 'work', 'main']);
      const links = join(work, 'links');
      const installed = await other.run('dotfiles', repo, '--branch', 'work', '--symlink-dir', links, '-y');
      assert.equal(installed.code, 0, installed.stderr);
      assert.equal(readlinkSync(join(links, '.zshrc')), join(config, 'dotfiles', '.zshrc'));
      assert.equal(execFileSync('git', ['-C', join(config, 'dotfiles'), 'branch', '--show-current'], { encoding: 'utf8' }), 'work\n');

      const fresh = new CliUser({ HOME: home, PATH: process.env['PATH'] ?? '' });
      const missing = await fresh.run('dotfiles', join(work, 'nowhere.git'), '-y');
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /git clone .*nowhere\.git failed/);
    });
  });
});
