import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stop, waitFor } from '../helpers/child-process.js';
import { createTestDatabase, serveDatabaseArgs, TEST_DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { startOAuth2Server, type TestOAuth2Server } from '../helpers/oauth2-server.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');
/** Short, so that the test waits past an expiry and sees the refresh. */
const ACCESS_TOKEN_TTL_SECONDS = 3;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * git inside a `local-shell` workspace, run as a user would over `cove ssh`, against a real git
 * server that accepts only the provider's current access token, with the agent's GIT_ASKPASS
 * asking the deployment for it.
 */
describe('git clone and push inside a workspace with a linked git provider', () => {
  let oauth: TestOAuth2Server;
  let git: GitHttpServer;

  before(async () => {
    oauth = await startOAuth2Server({ accessTokenTtlSeconds: ACCESS_TOKEN_TTL_SECONDS });
    git = await startGitHttpServer(
      async (username, password) => (await oauth.isLiveAccessToken(username)) || (await oauth.isLiveAccessToken(password)),
    );
  });
  after(async () => {
    await git.close();
    await oauth.close();
  });

  for (const dialect of TEST_DIALECTS) {
    describe(`on ${dialect}`, () => {
      const root = mkdtempSync(join(tmpdir(), 'cove-e2e-git-'));
      const env = { COVE_CONFIG_DIR: join(root, 'config'), COVE_SECRET_STORE: 'file', HOME: join(root, 'home') };
      let server: ChildProcess | undefined;
      let database: TestDatabase | undefined;
      let url = '';
      // Asynchronous: the OAuth2 and git servers answer from this same process.
      const cove = (...args: string[]): Promise<Run> => {
        const child = spawn(COVE, args, { env: { ...process.env, ...env }, cwd: root, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        return new Promise((done) => child.on('close', (code) => done({ code: code ?? -1, stdout, stderr })));
      };
      /** A shell command in the workspace, over SSH without a terminal, as a script would run it. */
      const inWorkspace = (command: string): Promise<Run> => cove('ssh', 'dev', '--', command);
      const sessionToken = () =>
        Object.values(JSON.parse(readFileSync(join(env.COVE_CONFIG_DIR, 'credentials.json'), 'utf8')) as Record<string, string>)[0] ?? '';
      const clones = join(root, 'clones');

      before(async () => {
        mkdirSync(env.HOME, { recursive: true });
        mkdirSync(clones);
        database = await createTestDatabase(dialect);
        const provider = oauth.env(0, {
          ID: 'git',
          TYPE: 'github',
          DISPLAY_NAME: 'Test Git',
          // The git server's https and http URLs, and the SSH form of the same host.
          REGEX: `^https?://127\\.0\\.0\\.1(:${git.port})?(/|$)`,
        });
        const args = ['serve', '--http-address', '127.0.0.1:0', '--data-dir', join(root, 'data'), '--provisioner-daemons', '1'];
        server = spawn(COVE, [...args, ...serveDatabaseArgs(database)], {
          env: { ...process.env, ...env, ...provider },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        url = await waitFor(server, 'stderr', /cove is listening url=(\S+)/, 'cove serve');
        await oauth.allowRedirect(`${url}/external-auth/git/callback`);
        const login = await cove(
          'login',
          url,
          '--first-user-email',
          'dev@example.com',
          '--first-user-username',
          'dev',
          '--first-user-password',
          STRONG_PASSWORD,
        );
        assert.equal(login.code, 0, login.stderr);
        assert.equal((await cove('templates', 'init', '--id', 'local-shell', 't')).code, 0);
        assert.equal((await cove('templates', 'push', 't', '-y')).code, 0);
        const create = await cove('create', 'dev', '--template', 't', '-y');
        assert.equal(create.code, 0, create.stderr);
        await eventually(
          async () => {
            const shown = JSON.parse((await cove('show', 'dev', '-o', 'json')).stdout) as {
              latest_build: { resources: { agents: { status: string; lifecycle_state: string }[] }[] };
            };
            const agent = shown.latest_build.resources.flatMap((r) => r.agents)[0];
            assert.equal(`${agent?.status}/${agent?.lifecycle_state}`, 'connected/ready');
          },
          30_000,
          200,
        );
      });

      after(async () => {
        await cove('delete', 'dev', '-y');
        await stop(server);
        await database?.drop();
        rmSync(root, { recursive: true, force: true });
      });

      it('fails a clone with the link URL before the account is linked', async () => {
        const clone = await inWorkspace(`git clone ${git.repoUrl} ${join(clones, 'before')}`);
        assert.notEqual(clone.code, 0);
        assert.match(clone.stderr, new RegExp(`You must link your git account to use this repository: ${url}/external-auth/git`));
      });

      it('clones once linked in the browser flow, again after the token expired (refreshed), and pushes', async () => {
        // As the browser does: the deployment sends it to the provider, the user logs in, the provider sends it back.
        const headers = { 'Service-Session-Token': sessionToken() };
        const started = await fetch(`${url}/external-auth/git/callback`, { headers, redirect: 'manual' });
        assert.equal(started.status, 307, await started.text());
        const back = await oauth.completeLogin(started.headers.get('location') ?? '', 'octocat');
        const done = await fetch(back, { headers, redirect: 'manual' });
        assert.equal(done.status, 307, await done.text());

        // One session for the clone and both tokens (each `cove ssh` costs a start of the CLI).
        const first = await inWorkspace(
          `git clone -q ${git.repoUrl} ${join(clones, 'first')} && "$GIT_ASKPASS" external-auth access-token git && ` +
            '"$GIT_ASKPASS" external-auth access-token --match git@127.0.0.1:repo.git',
        );
        assert.equal(first.code, 0, first.stderr);
        assert.equal(readFileSync(join(clones, 'first', 'README.md'), 'utf8'), '# repo\n');
        const [byId = '', bySsh = ''] = first.stdout.trim().split('\n');
        assert.ok(await oauth.isLiveAccessToken(byId), 'access-token prints the live token');
        assert.ok(await oauth.isLiveAccessToken(bySsh), 'an SSH-style URL finds the provider too');

        const refreshesBefore = oauth.refreshGrants();
        await new Promise((r) => setTimeout(r, (ACCESS_TOKEN_TTL_SECONDS + 1) * 1000));
        assert.equal(await oauth.isLiveAccessToken(byId), false, 'the first token has expired');
        const work = join(clones, 'second');
        const second = await inWorkspace(
          `git clone -q ${git.repoUrl} ${work} && cd ${work} && ` +
            `git -c user.name=Dev -c user.email=dev@example.com commit -q --allow-empty -m "from ${dialect}" && git push -q origin main`,
        );
        assert.equal(second.code, 0, second.stderr);
        assert.ok(oauth.refreshGrants() > refreshesBefore, 'the deployment refreshed the token');
        assert.equal(git.commitSubjects()[0], `from ${dialect}`);
      });
    });
  }
});
