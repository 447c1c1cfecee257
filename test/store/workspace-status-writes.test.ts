import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { CoveClient } from '../../src/sdk/client.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** Records each change of a workspace row's status, as `old>new`, in the table `status_writes`. */
async function recordStatusWrites(test: TestDaemon): Promise<void> {
  const db = test.daemon.store.db;
  await sql`create table status_writes (id ${sql.raw(test.database.target.kind === 'postgres' ? 'serial' : 'integer')} primary key, change text not null)`.execute(
    db,
  );
  const change = sql`coalesce(old.latest_build_status, 'null') || '>' || coalesce(new.latest_build_status, 'null')`;
  if (test.database.target.kind === 'sqlite') {
    await sql`create trigger record_status_writes after update of latest_build_status on workspaces
      begin insert into status_writes (change) values (${change}); end`.execute(db);
    return;
  }
  await sql`create function record_status_writes() returns trigger language plpgsql as $$
    begin insert into status_writes (change) values (${change}); return null; end $$`.execute(db);
  await sql`create trigger record_status_writes after update of latest_build_status on workspaces
    for each row execute function record_status_writes()`.execute(db);
}

describe("the writes of a workspace row's status", () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
  });
  after(() => test?.close());

  it('are one per change of the build: none when the workspace is created with its first build', async () => {
    const { template } = await createEchoTemplate(owner, 'status-writes', { apply: { resources: [] } });
    await recordStatusWrites(test);
    const writes = async (): Promise<string[]> => {
      const rows = await test.daemon.store.db
        .selectFrom('status_writes' as never)
        .select(sql<string>`change`.as('change'))
        .orderBy(sql`id`)
        .execute();
      return rows.map((row) => row.change);
    };
    const workspace = await owner.createWorkspace('me', { name: 'counted', template_id: template.id });
    await eventually(async () => assert.equal((await owner.workspace(workspace.id)).latest_build.status, 'running'));
    assert.deepEqual(await writes(), ['pending>starting', 'starting>running']);
    assert.equal((await owner.workspaces({ q: 'status:running' })).count, 1);

    await owner.createWorkspaceBuild(workspace.id, { transition: 'stop' });
    await eventually(async () => assert.equal((await owner.workspace(workspace.id)).latest_build.status, 'stopped'));
    assert.deepEqual(await writes(), ['pending>starting', 'starting>running', 'running>pending', 'pending>stopping', 'stopping>stopped']);
    assert.equal((await owner.workspaces({ q: 'status:stopped' })).count, 1);
  });
});
