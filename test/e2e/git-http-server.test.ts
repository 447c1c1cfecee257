import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';

const GOOD = 'the-current-token';

/** The test git server itself: it must refuse what the provider would refuse, or the end-to-end test proves nothing. */
describe('the test git server (git http-backend behind Basic authentication)', () => {
  let server: GitHttpServer;
  const root = mkdtempSync(join(tmpdir(), 'cove-git-client-'));
  // Asynchronous: the server answers from this same process.
  const git = (cwd: string, ...args: string[]) => {
    const child = spawn('git', args, {
      cwd,
      timeout: 30_000,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: root,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_TERMINAL_PROMPT: '0',
        GIT_AUTHOR_NAME: 'Dev',
        GIT_AUTHOR_EMAIL: 'dev@example.com',
        GIT_COMMITTER_NAME: 'Dev',
        GIT_COMMITTER_EMAIL: 'dev@example.com',
      },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise<{ code: number; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stderr })));
  };
  const withCredentials = (user: string, password: string) => server.repoUrl.replace('http://', `http://${user}:${password}@`);

  before(async () => {
    server = await startGitHttpServer((username, password) => Promise.resolve(username === GOOD || password === GOOD));
  });
  after(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses a clone without credentials or with a wrong token, with 401', async () => {
    const bare = await git(root, 'clone', server.repoUrl, 'none');
    assert.notEqual(bare.code, 0);
    const wrong = await git(root, 'clone', withCredentials('oauth2', 'stale-token'), 'wrong');
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /Authentication failed/);
    assert.ok(server.refusals() >= 2);
  });

  it('clones with the right token, as username or as password, and takes a push', async () => {
    assert.equal((await git(root, 'clone', '-q', withCredentials(GOOD, ''), 'as-user')).code, 0);
    const clone = await git(root, 'clone', '-q', withCredentials('oauth2', GOOD), 'work');
    assert.equal(clone.code, 0, clone.stderr);
    const work = join(root, 'work');
    assert.equal(readFileSync(join(work, 'README.md'), 'utf8'), '# repo\n');
    writeFileSync(join(work, 'change.txt'), 'pushed\n');
    assert.equal((await git(work, 'add', 'change.txt')).code, 0);
    assert.equal((await git(work, 'commit', '-q', '-m', 'a change')).code, 0);
    const push = await git(work, 'push', '-q', 'origin', 'main');
    assert.equal(push.code, 0, push.stderr);
    assert.deepEqual(server.commitSubjects(), ['a change', 'seed']);
  });
});
