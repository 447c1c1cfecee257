import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoveClient } from '../../src/sdk/client.js';
import type { Group, ReducedUser } from '../../src/sdk/wire/index.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { CliUser } from '../helpers/run-cli.js';
import { createMember, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

for (const dialect of TEST_DIALECTS) {
  describe(`cove groups (${dialect})`, () => {
    const admin = new CliUser();
    let test: TestDaemon;
    let client: CoveClient;

    async function cli(...args: string[]): Promise<string> {
      const result = await admin.run(...args);
      assert.equal(result.code, 0, `cove ${args.join(' ')}: ${result.stderr}${result.stdout}`);
      return result.stdout;
    }

    before(async () => {
      test = await startTestDaemon({ database: dialect });
      await admin.signUpFirstUser(test.url, { email: 'a@example.com', username: 'admin' });
      client = new CoveClient({ url: test.url, token: admin.savedToken() });
      await createMember(test, 'alice');
      await createMember(test, 'bob');
    });
    after(async () => test.close());

    it('creates, lists, edits, shows members of and deletes a group', async () => {
      const created = JSON.parse(
        await cli('groups', 'create', 'devs', '--display-name', 'Developers', '--quota-allowance', '10', '-o', 'json'),
      ) as Group;
      assert.equal(created.name, 'devs');
      assert.equal(created.display_name, 'Developers');
      assert.equal(created.quota_allowance, 10);

      const table = await cli('groups', 'list');
      assert.match(table, /NAME\s+DISPLAY NAME\s+ORGANIZATION\s+MEMBERS\s+QUOTA ALLOWANCE\s+SOURCE/);
      assert.match(table, /devs\s+Developers\s+cove\s+0\s+10\s+user/);
      assert.match(table, /Everyone/);
      const columns = await cli('groups', 'list', '-c', 'name,id');
      assert.match(columns, new RegExp(`devs\\s+${created.id}`));
      const listed = JSON.parse(await cli('groups', 'list', '-o', 'json')) as Group[];
      assert.deepEqual(
        listed.map((g) => g.name),
        ['Everyone', 'devs'],
      );

      await cli('groups', 'edit', 'devs', '-a', 'alice,bob', '--quota-allowance', '4');
      const withMembers = await client.group(created.id);
      assert.deepEqual(
        withMembers.members.map((m) => m.username),
        ['alice', 'bob'],
      );
      assert.equal(withMembers.quota_allowance, 4);

      const members = await cli('groups', 'members', 'devs');
      assert.match(members, /USERNAME\s+EMAIL\s+STATUS/);
      assert.match(members, /alice\s+alice@example.com\s+active/);
      const membersJson = JSON.parse(await cli('groups', 'members', 'devs', '-o', 'json')) as ReducedUser[];
      assert.deepEqual(
        membersJson.map((m) => m.username),
        ['alice', 'bob'],
      );

      const renamed = JSON.parse(await cli('groups', 'edit', 'devs', '-r', 'bob', '--name', 'developers', '-o', 'json')) as Group;
      assert.equal(renamed.name, 'developers');
      assert.deepEqual(
        renamed.members.map((m) => m.username),
        ['alice'],
      );

      assert.match(await cli('groups', 'delete', 'developers'), /Deleted group developers/);
      assert.deepEqual(
        (await client.organizationGroups('default')).map((g) => g.name),
        ['Everyone'],
      );
    });

    it('says what is wrong: a taken name, the Everyone group, a bad allowance, another organization', async () => {
      await cli('groups', 'create', 'ops');
      const taken = await admin.run('groups', 'create', 'ops');
      assert.equal(taken.code, 1);
      assert.match(taken.stderr, /already exists/);
      const everyone = await admin.run('groups', 'edit', 'Everyone', '-a', 'alice');
      assert.equal(everyone.code, 1);
      assert.match(everyone.stderr, /Everyone/);
      const allowance = await admin.run('groups', 'create', 'cheap', '--quota-allowance', 'lots');
      assert.equal(allowance.code, 1);
      assert.match(allowance.stderr, /--quota-allowance/);
      await client.createOrganization({ name: 'labs' });
      await cli('groups', 'create', 'lab-rats', '-O', 'labs');
      assert.deepEqual(
        (JSON.parse(await cli('groups', 'list', '--org', 'labs', '-o', 'json')) as Group[]).map((g) => g.name),
        ['Everyone', 'lab-rats'],
      );
      const missing = await admin.run('groups', 'members', 'lab-rats');
      assert.equal(missing.code, 1);
    });
  });
}
