import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

describe('changing users', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('suspends a user: their session stops working at once, and activation brings it back', async () => {
    const alice = await createMember(test, 'alice');
    await alice.user('me'); // cached now
    assert.equal((await owner.suspendUser('alice')).status, 'suspended');
    const error = await expectApiError(alice.user('me'), 401);
    assert.match(error.message, /status = "suspended"/);
    await expectApiError(test.anonymous.login('alice@example.com', STRONG_PASSWORD), 401);
    assert.equal((await owner.activateUser('alice')).status, 'active');
    assert.equal((await alice.user('me')).username, 'alice');
    await expectApiError(owner.suspendUser('me'), 400);
    await expectApiError(alice.suspendUser('owner'), 404);
  });

  it('assigns site roles within the rules, with effect on the next request', async () => {
    const bob = await createMember(test, 'bob');
    await expectApiError(bob.deploymentConfig(), 403);
    const updated = await owner.setSiteRoles('bob', ['auditor']);
    assert.deepEqual(
      updated.roles.map((r) => r.name),
      ['auditor'],
    );
    await bob.deploymentConfig();
    await expectApiError(owner.setSiteRoles('me', []), 400);
    await expectApiError(owner.setSiteRoles('bob', ['emperor']), 400);
    const denied = await expectApiError(bob.setSiteRoles('alice', ['auditor']), 403);
    assert.equal(denied.message, 'Forbidden.');
  });

  it('updates profiles and refuses a taken username with 409', async () => {
    const carol = await createMember(test, 'carol');
    assert.equal((await carol.updateProfile('me', { username: 'carol2', name: 'Carol C' })).name, 'Carol C');
    const taken = await expectApiError(carol.updateProfile('me', { username: 'owner' }), 409);
    assert.deepEqual(
      taken.body.validations?.map((v) => v.field),
      ['username'],
    );
    await expectApiError(carol.updateProfile('me', { username: 'bad name' }), 400);
  });

  it('changes passwords: the old one is needed for your own, and every session ends', async () => {
    const dave = await createMember(test, 'dave');
    await expectApiError(dave.changePassword('me', { password: 'Another-Strong-Pass-7' }), 400);
    await expectApiError(dave.changePassword('me', { old_password: 'nope', password: 'Another-Strong-Pass-7' }), 400);
    await dave.changePassword('me', { old_password: STRONG_PASSWORD, password: 'Another-Strong-Pass-7' });
    await expectApiError(dave.user('me'), 401);
    await test.anonymous.login('dave@example.com', 'Another-Strong-Pass-7');
  });

  it('refuses a weak password with the same details wherever a password is set', async () => {
    const frank = await createMember(test, 'frank');
    for (const weak of ['password', 'aaaaaaaaaaaaaaaa', `Aa1!${'x'.repeat(70)}`]) {
      const { valid, details } = await owner.validatePassword(weak);
      assert.equal(valid, false);
      const created = await expectApiError(
        owner.createUser({
          email: 'weak@example.com',
          username: 'weak',
          password: weak,
          organization_ids: [test.daemon.identity.defaultOrganization.id],
        }),
        400,
      );
      const changed = await expectApiError(frank.changePassword('me', { old_password: STRONG_PASSWORD, password: weak }), 400);
      const reset = await expectApiError(
        test.anonymous.changePasswordWithPasscode({ email: 'frank@example.com', one_time_passcode: 'x', password: weak }),
        400,
      );
      for (const error of [created, changed, reset]) {
        assert.deepEqual(error.body.validations, [{ field: 'password', detail: details }], `${weak}: ${error.message}`);
      }
    }
  });

  it('deletes users, but not oneself', async () => {
    const erin = await createMember(test, 'erin');
    // A member cannot even see the owner, so the answer does not reveal them.
    await expectApiError(erin.deleteUser('owner'), 404);
    await expectApiError(owner.deleteUser('me'), 403);
    assert.equal((await owner.deleteUser('erin')).message, 'User has been deleted!');
    await expectApiError(erin.user('me'), 401);
    await expectApiError(owner.user('erin'), 404);
  });
});
