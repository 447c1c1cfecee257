import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPOSITORY_ROOT } from '../helpers/repository-root.js';

// Someone who clones the repository and follows the README must not end up with files that git
// reports as new: whatever the set-up and the quick start write into the checkout is ignored.

const ROOT = REPOSITORY_ROOT;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

/** The README's quick-start commands that write into the checkout: `bin/cove templates init ...`. */
function quickStartCommandsThatWrite(): string[][] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return readme
    .split('\n')
    .filter((line) => line.startsWith('bin/cove templates init '))
    .map((line) =>
      line
        .replace(/\s+#.*$/, '')
        .split(/\s+/)
        .slice(1),
    );
}

describe('a clean clone', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'cove-clean-clone-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('stays clean through the build and the README quick start', () => {
    const clone = join(scratch, 'cove');
    git(scratch, 'clone', '--quiet', ROOT, clone);
    git(clone, 'checkout', '--quiet', '--detach', git(ROOT, 'rev-parse', 'HEAD').trim());
    // Instead of a five-minute `npm install`: the same packages, then what its prepare script runs.
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: clone, stdio: 'pipe' });

    const commands = quickStartCommandsThatWrite();
    assert.ok(commands.length > 0, 'the README quick start has a "bin/cove templates init" command');
    const home = join(scratch, 'home');
    mkdirSync(home);
    for (const args of commands) {
      const result = spawnSync(process.execPath, [join(clone, 'bin', 'cove'), ...args], {
        cwd: clone,
        encoding: 'utf8',
        env: { ...process.env, HOME: home, COVE_CONFIG_DIR: join(home, 'config') },
        timeout: 60_000,
      });
      assert.equal(result.status, 0, `bin/cove ${args.join(' ')}:\n${result.stdout}${result.stderr}`);
    }
    // The install section copies the single executable into the checkout as ./cove.
    copyFileSync(join(clone, 'bin', 'cove'), join(clone, 'cove'));

    assert.equal(git(clone, 'status', '--porcelain'), '', 'git status after the build and the quick start');
  });
});
