import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { WorkspaceQuota } from '../../src/sdk/wire/index.js';
import { CliUser } from '../helpers/run-cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** A machine that costs 4 credits a day while started. */
const VM = { plan: { resources: [{ name: 'vm', daily_cost: 4 }], stop: { resources: [] } } };

describe('cove quota and the cost cove create shows', () => {
  let test: TestDaemon;
  const admin = new CliUser();
  const work = mkdtempSync(join(tmpdir(), 'cove-quota-'));

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    await admin.signUpFirstUser(test.url, { email: 'a@example.com', username: 'admin' });
    const dir = join(work, 'vm');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'echo.json'), JSON.stringify(VM));
    const pushed = await admin.run('templates', 'push', dir, '-y');
    assert.equal(pushed.code, 0, pushed.stderr + pushed.stdout);
  });
  after(async () => test?.close());

  it('says there is no budget while no group has an allowance, and shows no cost on create', async () => {
    const shown = await admin.run('quota');
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout, 'You: 0 credits a day in use; no group has a quota allowance, so there is no budget.\n');
    const created = await admin.run('create', 'free', '-t', 'vm', '-y');
    assert.equal(created.code, 0, created.stderr + created.stdout);
    assert.doesNotMatch(created.stdout, /credits? a day/);
  });

  it('shows the cost and what is left before creating, and the quota with -o json', async () => {
    // The Everyone group's row (its id is the organization's) grants every member 10 credits a day.
    const orgId = test.daemon.identity.defaultOrganization.id;
    await test.daemon.store.db.updateTable('groups').set({ quota_allowance: 10 }).where('id', '=', orgId).execute();

    const second = await admin.run('create', 'second', '-t', 'vm', '-y');
    assert.equal(second.code, 0, second.stderr + second.stdout);
    assert.match(second.stdout, /^This workspace costs 4 credits a day; you have 6 of 10 left\.$/m);
    const json = await admin.run('quota', '-o', 'json');
    assert.deepEqual(JSON.parse(json.stdout) as WorkspaceQuota, { credits_consumed: 8, budget: 10 });
    const text = await admin.run('quota', 'admin', '--org', 'cove');
    assert.equal(text.stdout, 'admin: 8 of 10 credits a day in use, 2 left.\n');

    const third = await admin.run('create', 'third', '-t', 'vm', '-y');
    assert.notEqual(third.code, 0);
    assert.match(
      third.stdout,
      /^This workspace costs 4 credits a day; you have 2 of 10 left: 2 over budget, the build will be refused\.$/m,
    );
    assert.match(third.stderr, /This build costs 4 credits a day; you have 2 of 10 left: 2 over budget\./);
  });
});
