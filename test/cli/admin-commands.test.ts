import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CliUser } from '../helpers/run-cli.js';
import { startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

describe('cove users and cove organizations', () => {
  let test: TestDaemon;
  const admin = new CliUser();
  before(async () => {
    test = await startTestDaemon();
    const login = await admin.run('login', test.url, '--first-user-email', 'a@example.com', '--first-user-username', 'admin', '--first-user-password', STRONG_PASSWORD);
    assert.equal(login.code, 0, login.stderr);
  });
  after(async () => test.close());

  it('creates, lists, suspends, activates and gives roles to users', async () => {
    const created = await admin.run('users', 'create', '--email', 'bob@example.com', '--username', 'bob', '--password', STRONG_PASSWORD, '-o', 'json');
    assert.equal(created.code, 0, created.stderr);
    assert.equal((JSON.parse(created.stdout) as { status: string }).status, 'dormant');
    const listed = JSON.parse((await admin.run('users', 'list', '-o', 'json')).stdout) as { username: string }[];
    assert.deepEqual(listed.map((u) => u.username).sort(), ['admin', 'bob']);
    assert.match((await admin.run('users', 'list', '-q', 'role:owner')).stdout, /^USERNAME[\s\S]*admin/);
    assert.equal(JSON.parse((await admin.run('users', 'suspend', 'bob', '-o', 'json')).stdout).status, 'suspended');
    assert.equal(JSON.parse((await admin.run('users', 'activate', 'bob', '-o', 'json')).stdout).status, 'active');
    const roles = JSON.parse((await admin.run('users', 'roles', 'bob', 'auditor', 'template-admin', '-o', 'json')).stdout) as { roles: { name: string }[] };
    assert.deepEqual(roles.roles.map((r) => r.name).sort(), ['auditor', 'template-admin']);
    const bad = await admin.run('users', 'roles', 'bob', 'emperor');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /"emperor" is not a supported role/);
  });

  it('manages organizations and members', async () => {
    assert.equal((await admin.run('organizations', 'create', 'research', '--display-name', 'Research')).code, 0);
    assert.equal((await admin.run('orgs', 'members', 'add', 'bob', '--org', 'research')).code, 0);
    const members = JSON.parse((await admin.run('orgs', 'members', 'list', '--org', 'research', '-o', 'json')).stdout) as { username: string }[];
    assert.deepEqual(members.map((m) => m.username).sort(), ['admin', 'bob']);
    const roles = await admin.run('orgs', 'members', 'roles', 'bob', 'organization-auditor', '--org', 'research');
    assert.match(roles.stdout, /bob: organization-auditor/);
    const refused = await admin.run('orgs', 'delete', 'research');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /must be removed first/);
    assert.equal((await admin.run('orgs', 'members', 'remove', 'bob', '--org', 'research')).code, 0);
    assert.equal((await admin.run('orgs', 'delete', 'research')).code, 0);
    const list = JSON.parse((await admin.run('orgs', 'list', '-o', 'json')).stdout) as { name: string }[];
    assert.deepEqual(list.map((o) => o.name), ['cove']);
  });
});
