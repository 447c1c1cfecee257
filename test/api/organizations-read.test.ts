import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/lib/random.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('reading organizations and validating passwords', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;
  let otherOrgId: string;
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
    member = await createMember(test, 'member');
    otherOrgId = newId();
    const now = test.clock.now().toISOString();
    await test.daemon.store.db
      .insertInto('organizations')
      .values({
        id: otherOrgId,
        name: 'research',
        display_name: 'Research',
        description: '',
        icon: '',
        is_default: 0,
        workspace_sharing_disabled: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
  });
  after(async () => test.close());

  it('lists every organization to the owner and only their own to a member', async () => {
    assert.deepEqual((await owner.organizations()).map((o) => o.name).sort(), ['cove', 'research']);
    const mine = await member.organizations();
    assert.deepEqual(
      mine.map((o) => [o.name, o.is_default]),
      [['cove', true]],
    );
  });

  it('reads one organization by id, name or "default", and hides the others with 404', async () => {
    const byDefault = await member.organization('default');
    assert.equal(byDefault.id, test.daemon.identity.defaultOrganization.id);
    assert.equal((await member.organization(byDefault.id)).name, 'cove');
    assert.equal((await owner.organization('research')).id, otherOrgId);
    const hidden = await expectApiError(member.organization(otherOrgId), 404);
    const missing = await expectApiError(member.organization(newId()), 404);
    assert.equal(hidden.message, missing.message, 'an invisible organization looks exactly like a missing one');
  });

  it('validates passwords with details that say what is wrong, for signed-in callers', async () => {
    await expectApiError(test.anonymous.validatePassword('password'), 401);
    const weak = await member.validatePassword('password');
    assert.equal(weak.valid, false);
    assert.match(weak.details, /^insecure password, try .*using uppercase letters.*using numbers or using a longer password$/);
    assert.deepEqual(await member.validatePassword('Correct-Horse-Battery-9'), { valid: true, details: '' });
    const long = await member.validatePassword(`Aa1!${'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(2)}`);
    assert.deepEqual(long, { valid: false, details: 'password must be no more than 64 characters' });
  });
});
