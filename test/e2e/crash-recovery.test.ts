import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTar } from '../../src/lib/archive/index.js';
import { CoveClient } from '../../src/sdk/client.js';
import { stop, waitFor } from '../helpers/child-process.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

for (const kind of TEST_DIALECTS) {
  describe(`jobs left running by a killed bin/cove serve (${kind})`, () => {
    let database: TestDatabase;
    let server: ChildProcess | undefined;

    /** Starts `cove serve` on the test's data directory and database; resolves with its URL. */
    async function serve(): Promise<string> {
      const args = ['serve', '--http-address', '127.0.0.1:0', '--data-dir', database.dataDir, '--provisioner-daemons', '2'];
      if (database.target.kind === 'postgres') args.push('--postgres-url', database.target.url);
      server = spawn(COVE, args, { env: { ...process.env, COVE_SECRET_STORE: 'file' }, stdio: ['ignore', 'ignore', 'pipe'] });
      return waitFor(server, 'stderr', /cove is listening url=(\S+)/, 'cove serve');
    }

    before(async () => {
      database = await createTestDatabase(kind);
    });
    after(async () => {
      await stop(server);
      await database.drop();
    });

    it('fails them as soon as it is back, and the workspace stops and deletes at once', async () => {
      const firstUrl = await serve();
      const anonymous = new CoveClient({ url: firstUrl });
      await anonymous.createFirstUser({ email: 'admin@example.com', username: 'admin', password: STRONG_PASSWORD });
      const { session_token: token } = await anonymous.login('admin@example.com', STRONG_PASSWORD);
      let admin = anonymous.withToken(token);

      // A workspace whose start build never ends by itself, and an import that never ends either:
      // each is held mid-run by one of the two built-in provisioner daemons.
      const { template } = await createEchoTemplate(admin, 'slow', { apply: { start: { hang: true } } });
      const workspace = await admin.createWorkspace('me', { template_id: template.id, name: 'dev' });
      const { id: fileId } = await admin.uploadFile(await createTar({ 'echo.json': JSON.stringify({ parse: { hang: true } }) }));
      const version = await admin.createTemplateVersion('default', { file_id: fileId });
      await eventually(
        async () => {
          assert.equal((await admin.workspaceBuild(workspace.latest_build.id)).job.status, 'running');
          assert.equal((await admin.templateVersion(version.id)).job.status, 'running');
        },
        10_000,
        100,
      );

      const killed = server;
      killed?.kill('SIGKILL');
      await new Promise((resolveExit) => killed?.once('exit', resolveExit));
      const url = await serve();
      admin = new CoveClient({ url, token });

      const restartedAt = Date.now();
      // Polled slowly enough to stay clear of the API's rate limit over a whole minute.
      await eventually(
        async () => {
          assert.equal((await admin.templateVersion(version.id)).job.status, 'failed');
          assert.equal((await admin.workspaceBuild(workspace.latest_build.id)).job.status, 'failed');
        },
        60_000,
        500,
      );
      assert.ok(Date.now() - restartedAt < 60_000);
      const failed = await admin.templateVersion(version.id);
      assert.match(failed.job.error ?? '', /built-in-[12]@.+ that ran this job stopped \(its server restarted\)/);

      // As a user would, with the CLI: no 409 about a build still in progress, no five-minute wait.
      const env = { ...process.env, COVE_URL: url, COVE_SESSION_TOKEN: token, COVE_SECRET_STORE: 'file' };
      const cove = (...args: string[]) => spawnSync(COVE, args, { env, encoding: 'utf8', timeout: 30_000 });
      const stopped = cove('stop', 'dev');
      assert.equal(stopped.status, 0, stopped.stderr);
      assert.match(stopped.stdout, /is stopped/);
      const deleted = cove('delete', 'dev', '-y');
      assert.equal(deleted.status, 0, deleted.stderr);
      assert.match(deleted.stdout, /has been deleted/);
    });
  });
}
