import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD } from '../helpers/test-daemon.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('user dormancy', () => {
  it('marks users unseen for the threshold dormant, and signing in or using a session wakes them', async () => {
    const test = await startTestDaemon({ flags: { userDormancyThresholdMs: '720h', sessionDurationMs: '2400h' } });
    try {
      const owner = await createOwner(test);
      const alice = await createMember(test, 'alice');
      await createMember(test, 'bob');
      test.clock.advance(29 * DAY_MS);
      await owner.user('me');
      await test.daemon.tasks.userDormancy.runNow();
      assert.equal((await owner.user('alice')).status, 'active', 'not yet past the threshold');

      test.clock.advance(2 * DAY_MS);
      await test.daemon.tasks.userDormancy.runNow();
      assert.equal((await owner.user('bob')).status, 'dormant');
      assert.equal((await owner.user('alice')).status, 'dormant');
      assert.equal((await owner.user('me')).status, 'active', 'the owner was seen within the threshold');

      await test.anonymous.login('bob@example.com', STRONG_PASSWORD);
      assert.equal((await owner.user('bob')).status, 'active', 'signing in reactivates');
      assert.equal((await alice.user('me')).status, 'active', 'a request with a live session reactivates');
    } finally {
      await test.close();
    }
  });

  it('does nothing when the threshold is 0', async () => {
    const test = await startTestDaemon({ flags: { userDormancyThresholdMs: '0', sessionDurationMs: '100000h' } });
    try {
      const owner = await createOwner(test);
      await createMember(test, 'carol');
      test.clock.advance(1000 * DAY_MS);
      await test.daemon.tasks.userDormancy.runNow();
      const { users } = await owner.users({ q: 'status:dormant' });
      assert.deepEqual(
        users.map((u) => u.username),
        [],
      );
    } finally {
      await test.close();
    }
  });
});
