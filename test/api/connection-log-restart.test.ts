import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLogger, startDaemon } from '../../src/daemon/index.js';
import { resolveOptions } from '../../src/domain/deployment-options.js';
import { ManualClock } from '../../src/lib/clock.js';
import { newId } from '../../src/lib/random.js';
import { SYSTEM_SUBJECTS } from '../../src/rbac/index.js';
import { CoveClient } from '../../src/sdk/client.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('connection log rows a dead run left open', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
  });
  after(async () => test.close());

  /** An open SSH row of a made-up workspace, as a replica writes it when a connection opens. */
  const openRow = async (replicaId: string, name: string) => {
    const id = newId();
    const user = await owner.user('me');
    await test.daemon.store.as(SYSTEM_SUBJECTS.connectionLogger).connectionLogs.open({
      id,
      connect_time: test.clock.now().toISOString(),
      organization_id: test.daemon.identity.defaultOrganization.id,
      workspace_owner_id: user.id,
      workspace_id: newId(),
      workspace_name: name,
      agent_name: 'main',
      type: 'ssh',
      ip: '192.0.2.7',
      user_id: user.id,
      user_agent: '',
      slug_or_port: '',
      code: null,
      connection_id: id,
      disconnect_time: null,
      disconnect_reason: '',
      bytes_to_workspace: 0,
      bytes_from_workspace: 0,
      replica_id: replicaId,
    });
    return id;
  };

  it('closes, at start, the rows of its own replica only', async () => {
    const mine = await openRow(test.daemon.replica.id, 'mine');
    const theirs = await openRow(newId(), 'theirs');
    assert.equal((await owner.connectionLogs({ q: 'status:ongoing' })).count, 2);

    // A new process on the same data directory: the same replica, started again.
    const target = test.database.target;
    const restarted = await startDaemon(
      resolveOptions({
        flags: {
          httpAddress: '127.0.0.1:0',
          dataDir: test.database.dataDir,
          provisionerDaemons: '0',
          ...(target.kind === 'postgres' ? { postgresUrl: target.url } : {}),
        },
        env: {},
      }),
      { logger: silentLogger(), clock: new ManualClock(test.clock.now()) },
    );
    try {
      const client = new CoveClient({ url: restarted.url, token: owner.token });
      const completed = await client.connectionLogs({ q: 'status:completed' });
      assert.deepEqual(
        completed.connection_logs.map((log) => log.id),
        [mine],
      );
      const closed = completed.connection_logs[0];
      assert.equal(closed?.ssh_info?.disconnect_reason, 'daemon restarted');
      assert.equal(closed?.disconnect_time, test.clock.now().toISOString());
      assert.equal(closed?.ip, '192.0.2.7');
      const ongoing = await client.connectionLogs({ q: 'status:ongoing' });
      assert.deepEqual(
        ongoing.connection_logs.map((log) => log.id),
        [theirs],
      );
      // The other filters narrow in SQL too.
      assert.equal((await client.connectionLogs({ q: 'workspace_owner:owner type:ssh' })).count, 2);
      assert.equal((await client.connectionLogs({ q: 'workspace_owner:me username:me' })).count, 2);
      assert.equal((await client.connectionLogs({ q: 'user_email:owner@example.com organization:default' })).count, 2);
      assert.equal((await client.connectionLogs({ q: 'type:workspace_app' })).count, 0);
      assert.equal((await client.connectionLogs({ q: `connected_before:2020-01-01T00:00:00Z` })).count, 0);
    } finally {
      await restarted.close();
    }
  });
});
