import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoveClient } from '../../src/sdk/client.js';
import { CliUser } from '../helpers/run-cli.js';
import { startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

describe('cove users and cove organizations', () => {
  let test: TestDaemon;
  const admin = new CliUser();
  before(async () => {
    test = await startTestDaemon();
    await admin.signUpFirstUser(test.url, { email: 'a@example.com', username: 'admin' });
  });
  after(async () => test.close());

  it('creates, lists, suspends, activates and gives roles to users', async () => {
    const created = await admin.run(
      'users',
      'create',
      '--email',
      'bob@example.com',
      '--username',
      'bob',
      '--password',
      STRONG_PASSWORD,
      '-o',
      'json',
    );
    assert.equal(created.code, 0, created.stderr);
    assert.equal((JSON.parse(created.stdout) as { status: string }).status, 'dormant');
    const listed = JSON.parse((await admin.run('users', 'list', '-o', 'json')).stdout) as { username: string }[];
    assert.deepEqual(listed.map((u) => u.username).sort(), ['admin', 'bob']);
    assert.match((await admin.run('users', 'list', '-q', 'role:owner')).stdout, /^USERNAME[\s\S]*admin/);
    assert.equal(JSON.parse((await admin.run('users', 'suspend', 'bob', '-o', 'json')).stdout).status, 'suspended');
    assert.equal(JSON.parse((await admin.run('users', 'activate', 'bob', '-o', 'json')).stdout).status, 'active');
    const roles = JSON.parse((await admin.run('users', 'roles', 'bob', 'auditor', 'template-admin', '-o', 'json')).stdout) as {
      roles: { name: string }[];
    };
    assert.deepEqual(roles.roles.map((r) => r.name).sort(), ['auditor', 'template-admin']);
    const bad = await admin.run('users', 'roles', 'bob', 'emperor');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /"emperor" is not a supported role/);
  });

  it('manages organizations and members', async () => {
    assert.equal((await admin.run('organizations', 'create', 'research', '--display-name', 'Research')).code, 0);
    assert.equal((await admin.run('orgs', 'members', 'add', 'bob', '--org', 'research')).code, 0);
    const members = JSON.parse((await admin.run('orgs', 'members', 'list', '--org', 'research', '-o', 'json')).stdout) as {
      username: string;
    }[];
    assert.deepEqual(members.map((m) => m.username).sort(), ['admin', 'bob']);
    const roles = await admin.run('orgs', 'members', 'roles', 'bob', 'organization-auditor', '--org', 'research');
    assert.match(roles.stdout, /bob: organization-auditor/);
    const refused = await admin.run('orgs', 'delete', 'research', '-y');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /must be removed first/);
    assert.equal((await admin.run('orgs', 'members', 'remove', 'bob', '--org', 'research')).code, 0);
    assert.equal((await admin.run('orgs', 'delete', 'research', '-y')).code, 0);
    const list = JSON.parse((await admin.run('orgs', 'list', '-o', 'json')).stdout) as { name: string }[];
    assert.deepEqual(
      list.map((o) => o.name),
      ['cove'],
    );
  });

  it('creates custom roles from flags and from a JSON file, assigns them, and the checks follow', async () => {
    const created = await admin.run('organizations', 'create', 'labs');
    assert.equal(created.code, 0, created.stderr);
    const carol = new CliUser();
    assert.equal(
      (await admin.run('users', 'create', '--email', 'carol@example.com', '--username', 'carol', '--password', STRONG_PASSWORD)).code,
      0,
    );
    assert.equal((await admin.run('orgs', 'members', 'add', 'carol', '-O', 'labs')).code, 0);
    const login = await carol.run('login', test.url, '--email', 'carol@example.com', '--password', STRONG_PASSWORD);
    assert.equal(login.code, 0, login.stderr);

    const role = await admin.run(
      'orgs',
      'roles',
      'create',
      'template-reader',
      '--display-name',
      'Template reader',
      '--permission',
      'template:read',
      '-O',
      'labs',
      '-o',
      'json',
    );
    assert.equal(role.code, 0, role.stderr);
    assert.deepEqual((JSON.parse(role.stdout) as { organization_permissions: unknown[] }[])[0]?.organization_permissions, [
      { negate: false, resource_type: 'template', action: 'read' },
    ]);
    const listed = await admin.run('orgs', 'roles', 'list', '-O', 'labs');
    assert.match(listed.stdout, /template-reader\s+Template reader\s+yes\s+template:read/);
    assert.match(listed.stdout, /organization-admin\s+Organization Admin\s+yes\s+yes/);

    const labs = JSON.parse((await admin.run('orgs', 'show', 'labs', '-o', 'json')).stdout) as { id: string };
    const checks = {
      read_templates: { action: 'read', object: { resource_type: 'template', organization_id: labs.id } },
      update_templates: { action: 'update', object: { resource_type: 'template', organization_id: labs.id } },
    };
    const carolClient = new CoveClient({ url: test.url, token: carol.savedToken() });
    assert.deepEqual(await carolClient.authCheck(checks), { read_templates: false, update_templates: false });
    assert.equal((await admin.run('orgs', 'members', 'roles', 'carol', 'template-reader', '-O', 'labs')).code, 0);
    assert.deepEqual(await carolClient.authCheck(checks), { read_templates: true, update_templates: false });

    const file = join(admin.configDir, 'role.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'template-reader',
        display_name: 'Template editor',
        organization_permissions: [
          { negate: false, resource_type: 'template', action: 'read' },
          { negate: false, resource_type: 'template', action: 'update' },
        ],
      }),
    );
    assert.equal((await admin.run('orgs', 'roles', 'update', '--file', file, '-O', 'labs')).code, 0);
    assert.deepEqual(await carolClient.authCheck(checks), { read_templates: true, update_templates: true });

    const grantSelf = await carol.run('orgs', 'members', 'roles', 'carol', 'organization-admin', '-O', 'labs');
    assert.equal(grantSelf.code, 1);
    assert.match(grantSelf.stderr, /403|Forbidden|not allowed/i);
    assert.equal((await admin.run('organizations', 'create', 'vault')).code, 0);
    const otherOrg = await carol.run('orgs', 'members', 'list', '-O', 'vault');
    assert.equal(otherOrg.code, 1, 'carol is not a member of vault');
    assert.match(otherOrg.stderr, /404|not found/i);
    const deleteDefault = await carol.run('orgs', 'delete', 'cove', '-y');
    assert.equal(deleteDefault.code, 1);
    assert.match(deleteDefault.stderr, /Forbidden|cannot be deleted/);

    const badFile = join(admin.configDir, 'bad.json');
    writeFileSync(badFile, '{ not json');
    const bad = await admin.run('orgs', 'roles', 'create', '--file', badFile, '-O', 'labs');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /bad\.json is not valid JSON/);
    const wildcard = await admin.run('orgs', 'roles', 'create', 'everything', '--permission', '*:*', '-O', 'labs');
    assert.equal(wildcard.code, 1);

    assert.equal((await admin.run('orgs', 'members', 'roles', 'carol', '-O', 'labs')).code, 0);
    const deleted = await admin.run('orgs', 'roles', 'delete', 'template-reader', '-O', 'labs');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.doesNotMatch((await admin.run('orgs', 'roles', 'list', '-O', 'labs')).stdout, /template-reader/);
  });
});
