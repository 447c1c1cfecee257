import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { CliUser } from '../helpers/run-cli.js';
import { startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

describe('cove login, whoami, tokens and logout', () => {
  let test: TestDaemon;
  const user = new CliUser();
  before(async () => {
    test = await startTestDaemon();
  });
  after(async () => test.close());

  it('explains what is missing when the first user cannot be prompted for', async () => {
    const result = await user.run('login', test.url);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /--first-user-email is required when not running in a terminal/);
    assert.equal(await test.anonymous.hasFirstUser(), false);
  });

  it('creates the first user and signs in, storing the token in a 0600 file', async () => {
    const result = await user.run(
      'login',
      test.url,
      '--first-user-email',
      'a@example.com',
      '--first-user-username',
      'admin',
      '--first-user-password',
      STRONG_PASSWORD,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Welcome to Cove, admin!/);
    const mode = statSync(join(user.configDir, 'credentials.json')).mode & 0o777;
    assert.equal(mode, 0o600);
  });

  it('prints the signed-in user as JSON', async () => {
    const result = await user.run('whoami', '-o', 'json');
    assert.equal(result.code, 0, result.stderr);
    const me = JSON.parse(result.stdout) as { username: string; email: string; roles: { name: string }[] };
    assert.equal(me.username, 'admin');
    assert.equal(me.email, 'a@example.com');
    assert.deepEqual(
      me.roles.map((r) => r.name),
      ['owner'],
    );
  });

  it('signs in a second time with --email and --password', async () => {
    const second = new CliUser();
    const result = await second.run('login', test.url, '--email', 'a@example.com', '--password', STRONG_PASSWORD, '-o', 'json');
    assert.equal(result.code, 0, result.stderr);
    assert.equal((JSON.parse(result.stdout) as { username: string }).username, 'admin');
    const wrong = await new CliUser().run('login', test.url, '--email', 'a@example.com', '--password', 'Wrong-Password-123');
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /error: Incorrect email or password\./);
  });

  it('creates, lists and removes tokens', async () => {
    const created = await user.run('tokens', 'create', '--name', 'ci', '--lifetime', '24h', '-o', 'json');
    assert.equal(created.code, 0, created.stderr);
    const { key } = JSON.parse(created.stdout) as { key: string };
    const viaToken = new CliUser({ COVE_URL: test.url, COVE_SESSION_TOKEN: key });
    assert.match((await viaToken.run('whoami')).stdout, /^admin <a@example.com>/);

    const listed = await user.run('tokens', 'list', '-o', 'json');
    const tokens = JSON.parse(listed.stdout) as { token_name: string; lifetime_seconds: number }[];
    assert.deepEqual(
      tokens.map((t) => [t.token_name, t.lifetime_seconds]),
      [['ci', 86400]],
    );
    const table = await user.run('tokens', 'list');
    assert.match(table.stdout, /^ID\s+NAME\s+SCOPE/);

    const bad = await user.run('tokens', 'create', '--lifetime', 'forever');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--lifetime "forever" is not a duration/);

    assert.equal((await user.run('tokens', 'remove', 'ci')).code, 0);
    const after = await viaToken.run('whoami');
    assert.equal(after.code, 1);
    assert.match(after.stderr, /hint: Run "cove login" to sign in again\./);
  });

  it('logs out: the stored token stops working and is forgotten', async () => {
    const token = JSON.parse(
      (await user.run('login', test.url, '--email', 'a@example.com', '--password', STRONG_PASSWORD, '-o', 'json')).stdout,
    ) as { url: string };
    assert.equal(token.url, test.url);
    const { FileSecretStore } = await import('../../src/cli/file-secret-store.js');
    const stored = await new FileSecretStore(join(user.configDir, 'credentials.json')).get(test.url);
    assert.ok(stored);
    const result = await user.run('logout');
    assert.equal(result.code, 0, result.stderr);
    await expectApiError(new CoveClient({ url: test.url, token: stored }).user('me'), 401);
    const whoami = await user.run('whoami');
    assert.equal(whoami.code, 1);
    assert.match(whoami.stderr, /You are not signed in/);
  });

  it('reports an unreachable deployment clearly', async () => {
    const result = await new CliUser().run('login', 'http://127.0.0.1:9', '--email', 'a@example.com', '--password', 'x');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /Could not reach the deployment/);
  });
});
