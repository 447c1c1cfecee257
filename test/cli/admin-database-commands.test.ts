import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger, startDaemon, type Daemon } from '../../src/daemon/index.js';
import { resolveOptions } from '../../src/domain/deployment-options.js';
import { ApiError } from '../../src/sdk/api-error.js';
import { CoveClient } from '../../src/sdk/client.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { CliUser } from '../helpers/run-cli.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';

/** A daemon on an existing database, which closing leaves in place for the next command. */
async function serveOn(database: TestDatabase): Promise<{ daemon: Daemon; anonymous: CoveClient }> {
  const target = database.target;
  const options = resolveOptions({
    flags: {
      httpAddress: '127.0.0.1:0',
      dataDir: database.dataDir,
      provisionerDaemons: '0',
      ...(target.kind === 'postgres' ? { postgresUrl: target.url } : {}),
    },
    env: {},
  });
  const daemon = await startDaemon(options, { logger: silentLogger() });
  return { daemon, anonymous: new CoveClient({ url: daemon.url }) };
}

async function refusedSignIn(client: CoveClient, email: string, password: string): Promise<number> {
  try {
    await client.login(email, password);
    return 200;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
}

for (const kind of TEST_DIALECTS) {
  describe(`cove server create-admin-user and cove reset-password on ${kind}, with no daemon running`, () => {
    let database: TestDatabase;
    let where: string[];
    const cli = new CliUser();

    before(async () => {
      database = await createTestDatabase(kind);
      where = database.target.kind === 'postgres' ? ['--postgres-url', database.target.url] : ['--data-dir', database.dataDir];
    });
    after(async () => database.drop());

    it('refuses a database it cannot open, saying where it looked and showing no password', async () => {
      const empty = mkdtempSync(join(tmpdir(), 'cove-no-db-'));
      try {
        const elsewhere = kind === 'postgres' ? ['--postgres-url', 'postgres://cove:hunter2-pw@127.0.0.1:1/cove'] : ['--data-dir', empty];
        const result = await cli.run('server', 'create-admin-user', '--email', 'x@example.com', '--username', 'x', ...elsewhere);
        assert.equal(result.code, 1);
        assert.match(
          result.stderr,
          kind === 'postgres' ? /Cannot open the database at postgres:\/\/cove:\[redacted\]@/ : /There is no Cove database at /,
        );
        assert.doesNotMatch(result.stderr, /hunter2/);
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
    });

    it('creates a site owner the daemon then signs in, and resets a password that ends the old sessions', async () => {
      if (kind === 'sqlite') {
        // SQLite: a database exists once a daemon has started on the data directory (PostgreSQL: created empty above).
        await (await serveOn(database)).daemon.close();
      }
      const created = await cli.run(
        'server',
        'create-admin-user',
        '--email',
        'admin@example.com',
        '--username',
        'admin',
        ...where,
        '-o',
        'json',
      );
      assert.equal(created.code, 0, created.stderr);
      const made = JSON.parse(created.stdout) as { username: string; roles: string[]; password: string };
      assert.equal(made.username, 'admin');
      assert.deepEqual(made.roles, ['owner']);
      assert.ok(made.password.length >= 20, 'a generated password is printed');
      const again = await cli.run('server', 'create-admin-user', '--email', 'other@example.com', '--username', 'admin', ...where);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /exists already/);

      let served = await serveOn(database);
      let oldSession: CoveClient;
      try {
        const { session_token } = await served.anonymous.login('admin@example.com', made.password);
        oldSession = served.anonymous.withToken(session_token);
        const me = await oldSession.user('me');
        assert.deepEqual(
          me.roles.map((role) => role.name),
          ['owner'],
        );
        assert.equal(me.status, 'active');
        assert.equal(me.organization_ids.length, 1, 'a member of the default organization');
        assert.equal(await served.anonymous.hasFirstUser(), true, 'the first-user sign-up is closed');
      } finally {
        await served.daemon.close();
      }

      const reset = await cli.run('reset-password', 'admin', '--password', STRONG_PASSWORD, ...where);
      assert.equal(reset.code, 0, reset.stderr);
      assert.match(reset.stdout, /Set a new password for "admin"/);
      assert.doesNotMatch(reset.stdout, /Password:/, 'a given password is not printed');
      const weak = await cli.run('reset-password', 'admin', '--password', 'password', ...where);
      assert.equal(weak.code, 1);
      assert.match(weak.stderr, /not strong enough/);
      const missing = await cli.run('reset-password', 'nobody', ...where);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /There is no user "nobody"/);

      served = await serveOn(database);
      try {
        assert.equal(await refusedSignIn(served.anonymous, 'admin@example.com', made.password), 401);
        await served.anonymous.login('admin@example.com', STRONG_PASSWORD);
        await assert.rejects(
          () => new CoveClient({ url: served.daemon.url, token: oldSession.token }).user('me'),
          (error: unknown) => error instanceof ApiError && error.status === 401,
        );
      } finally {
        await served.daemon.close();
      }
    });
  });
}

describe('cove server', () => {
  it('is still serve, with its own flags, and lists create-admin-user', async () => {
    const help = await new CliUser().run('server', '--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--http-address <value>/);
    assert.match(help.stdout, /create-admin-user/);
    const bad = await new CliUser().run('server', '--session-duration', 'later', '--http-address', '127.0.0.1:0');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--session-duration: "later" is not a duration/);
  });
});
