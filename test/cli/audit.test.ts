import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoveClient } from '../../src/sdk/client.js';
import type { AuditLog } from '../../src/sdk/wire/index.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { CliUser } from '../helpers/run-cli.js';
import { createMember, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('cove audit list', () => {
  const admin = new CliUser();
  let test: TestDaemon;

  async function cli(...args: string[]): Promise<string> {
    const result = await admin.run(...args);
    assert.equal(result.code, 0, `cove ${args.join(' ')}: ${result.stderr}${result.stdout}`);
    return result.stdout;
  }

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    await admin.signUpFirstUser(test.url, { email: 'admin@example.com', username: 'admin' });
    const owner = new CoveClient({ url: test.url, token: admin.savedToken() });
    const remover = await createMember(test, 'remover');
    await owner.setSiteRoles('remover', ['template-admin']);
    const { template } = await createEchoTemplate(remover, 'short-lived', {});
    await remover.deleteTemplate(template.id);
  });
  after(async () => test.close());

  it('names who deleted a template, in a table and as JSON', async () => {
    const table = await cli('audit', 'list', '-q', 'resource_type:template action:delete');
    const [heading, row, ...rest] = table.trimEnd().split('\n');
    assert.match(heading ?? '', /^TIME\s+USER\s+ACTION\s+RESOURCE TYPE\s+TARGET\s+STATUS\s+IP$/);
    assert.match(row ?? '', /\sremover\s+delete\s+template\s+short-lived\s+200\s+127\.0\.0\.1$/);
    assert.deepEqual(rest, []);

    const entries = JSON.parse(await cli('audit', 'list', '-q', 'resource_type:template action:delete', '-o', 'json')) as AuditLog[];
    assert.deepEqual(
      entries.map((entry) => [entry.user?.username, entry.action, entry.resource_target]),
      [['remover', 'delete', 'short-lived']],
    );
    assert.match(await cli('audit', 'list', '--limit', '1', '-c', 'user,action'), /^USER\s+ACTION\n\S+\s+\S+\n$/);
  });

  it('says what is wrong with a bad search or limit', async () => {
    const bad = await admin.run('audit', 'list', '-q', 'colour:blue');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /colour/);
    const limit = await admin.run('audit', 'list', '--limit', 'many');
    assert.notEqual(limit.code, 0);
    assert.match(limit.stderr, /--limit takes a whole number/);
  });
});
