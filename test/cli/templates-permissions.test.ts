import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { CliUser } from '../helpers/run-cli.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** `cove templates permissions`: shows a template's ACL and changes it by user and group names. */
for (const dialect of TEST_DIALECTS) {
  describe(`cove templates permissions (${dialect})`, () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let alice: CoveClient;
    let ownerCli: CliUser;
    let aliceCli: CliUser;

    const run = async (user: CliUser, ...args: string[]) => {
      const result = await user.run(...args);
      assert.equal(result.code, 0, `cove ${args.join(' ')}: ${result.stderr}${result.stdout}`);
      return result.stdout;
    };
    const entries = async (user: CliUser) =>
      (
        JSON.parse(await run(user, 'templates', 'permissions', 'restricted', '-o', 'json')) as {
          type: string;
          name: string;
          role: string;
        }[]
      )
        .map((row) => `${row.type}:${row.name}:${row.role}`)
        .sort();
    const aliceSees = async () => (await alice.templates()).some((template) => template.name === 'restricted');

    before(async () => {
      test = await startTestDaemon({ database: dialect, flags: { provisionerDaemons: '1' } });
      owner = await createOwner(test);
      alice = await createMember(test, 'alice');
      await createMember(test, 'bob');
      await createEchoTemplate(owner, 'restricted', {}, { settings: { disable_everyone_group_access: true } });
      ownerCli = new CliUser({ COVE_URL: test.url, COVE_SESSION_TOKEN: owner.token ?? '' });
      aliceCli = new CliUser({ COVE_URL: test.url, COVE_SESSION_TOKEN: alice.token ?? '' });
    });
    after(() => test.close());

    it('shows no entries for a template made without the Everyone group', async () => {
      assert.deepEqual(await entries(ownerCli), []);
      const table = await run(ownerCli, 'templates', 'permissions', 'restricted');
      assert.match(table, /TYPE\s+NAME\s+ROLE/i);
    });

    it('gives and takes roles by name, and the member sees the template only while named', async () => {
      assert.equal(await aliceSees(), false);
      const out = await run(ownerCli, 'templates', 'permissions', 'restricted', '--user', 'alice:use', '--group', 'Everyone:admin');
      assert.match(out, /Updated the permissions of template "restricted"/);
      assert.match(out, /user\s+alice\s+use/);
      assert.match(out, /group\s+Everyone\s+admin/);
      assert.deepEqual(await entries(ownerCli), ['group:Everyone:admin', 'user:alice:use']);
      assert.equal(await aliceSees(), true);

      await run(ownerCli, 'templates', 'permissions', 'restricted', '--remove-group', 'Everyone', '--user', 'bob:use');
      assert.deepEqual(await entries(ownerCli), ['user:alice:use', 'user:bob:use']);
      // Columns can be chosen, hidden ones included.
      const ids = await run(ownerCli, 'templates', 'permissions', 'restricted', '-c', 'name,id');
      assert.match(ids, /alice\s+[0-9a-f-]{36}/);

      await run(ownerCli, 'templates', 'permissions', 'restricted', '--remove-user', 'alice', '--remove-user', 'bob');
      assert.deepEqual(await entries(ownerCli), []);
      assert.equal(await aliceSees(), false);
    });

    it('refuses a bad role or an unknown name, and a member who may only use the template', async () => {
      const badRole = await ownerCli.run('templates', 'permissions', 'restricted', '--user', 'alice:owner');
      assert.notEqual(badRole.code, 0);
      assert.match(badRole.stderr, /NAME:ROLE with ROLE "use" or "admin"/);
      const unknown = await ownerCli.run('templates', 'permissions', 'restricted', '--user', 'nobody:use');
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /No user "nobody"/);

      await run(ownerCli, 'templates', 'permissions', 'restricted', '--user', 'alice:use');
      assert.deepEqual(await entries(ownerCli), ['user:alice:use']);
      // A user of the template sees neither whom it is shared with nor may change that.
      const hidden = await aliceCli.run('templates', 'permissions', 'restricted');
      assert.notEqual(hidden.code, 0);
      const refused = await aliceCli.run('templates', 'permissions', 'restricted', '--user', 'bob:use');
      assert.notEqual(refused.code, 0);
      assert.deepEqual(await entries(ownerCli), ['user:alice:use']);
    });
  });
}
