import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import type { WorkspaceACL } from '../../src/sdk/wire/index.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { CliUser } from '../helpers/run-cli.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const ECHO = { apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main' }] }] } };

for (const dialect of TEST_DIALECTS) {
  describe(`cove sharing share|unshare|status (${dialect})`, () => {
    let test: TestDaemon;
    let alice: CoveClient;
    let bob: CoveClient;
    let cli: CliUser;
    let workspaceId: string;
    /** A group of the organization, named by id: its name is looked up through the groups routes. */
    const devsId = randomUUID();

    before(async () => {
      test = await startTestDaemon({ database: dialect, flags: { provisionerDaemons: '1' } });
      const owner = await createOwner(test);
      alice = await createMember(test, 'alice');
      bob = await createMember(test, 'bob');
      await createMember(test, 'carol');
      const orgId = test.daemon.identity.defaultOrganization.id;
      await test.daemon.store.db
        .insertInto('groups')
        .values({
          id: devsId,
          organization_id: orgId,
          name: 'devs',
          display_name: '',
          avatar_url: '',
          quota_allowance: 0,
          source: 'user',
          created_at: new Date().toISOString(),
        })
        .execute();
      const { template } = await createEchoTemplate(owner, 'echo', ECHO);
      const created = await alice.createWorkspace('me', { name: 'dev', template_id: template.id });
      await alice.followWorkspaceBuildLogs(created.latest_build.id, () => undefined);
      workspaceId = created.id;
      cli = new CliUser({ COVE_URL: test.url, COVE_SESSION_TOKEN: alice.token ?? '' });
    });
    after(async () => test?.close());

    async function run(...args: string[]): Promise<string> {
      const result = await cli.run(...args);
      assert.equal(result.code, 0, `cove ${args.join(' ')}: ${result.stderr}${result.stdout}`);
      return result.stdout;
    }

    it('shares with users and groups by name, shows the shares as a table, JSON or chosen columns, and takes them away', async () => {
      assert.match(await run('sharing', 'status', 'dev'), /not shared with anyone/);

      const table = await run(
        'sharing',
        'share',
        'dev',
        '--user',
        'bob:admin,carol',
        '--group',
        `${devsId}:use`,
        '--group',
        'Everyone:use',
      );
      assert.match(table, /bob\s+user\s+admin/);
      assert.match(table, /carol\s+user\s+use/, 'the role defaults to use');
      assert.match(table, /devs\s+group\s+use/);
      assert.match(table, /Everyone\s+group\s+use/);
      assert.equal((await bob.workspace(workspaceId)).name, 'dev', 'bob now sees the workspace');

      const json = JSON.parse(await run('sharing', 'status', 'alice/dev', '-o', 'json')) as WorkspaceACL;
      assert.deepEqual(json.users.map((u) => [u.username, u.role]).sort(), [
        ['bob', 'admin'],
        ['carol', 'use'],
      ]);
      assert.deepEqual(json.group.map((g) => g.name).sort(), ['Everyone', 'devs']);

      const columns = await run('sharing', 'status', workspaceId, '-c', 'name,id');
      assert.match(columns, new RegExp(`bob\\s+${(await bob.user('me')).id}`));
      assert.doesNotMatch(columns, /admin/);

      // A group already sharing the workspace is found by its name.
      const after = await run('sharing', 'unshare', 'dev', '--user', 'bob', '--group', 'devs,Everyone');
      assert.doesNotMatch(after, /bob|devs|Everyone/);
      assert.match(after, /carol/);
      await assert.rejects(bob.workspace(workspaceId), /404|not found/i);
      await run('sharing', 'remove', 'dev', '--user', 'carol');
      assert.deepEqual(await alice.workspaceAcl(workspaceId), { users: [], group: [] });
    });

    it('refuses a bad role, nothing to share, and an unknown user', async () => {
      const badRole = await cli.run('sharing', 'share', 'dev', '--user', 'bob:owner');
      assert.notEqual(badRole.code, 0);
      assert.match(badRole.stderr, /not a workspace role/);
      const nothing = await cli.run('sharing', 'share', 'dev');
      assert.notEqual(nothing.code, 0);
      assert.match(nothing.stderr, /at least one user or group/);
      const unknown = await cli.run('sharing', 'share', 'dev', '--user', 'nobody:use');
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /No member "nobody"/);
      assert.deepEqual(await alice.workspaceAcl(workspaceId), { users: [], group: [] });
    });
  });
}
