import assert from 'node:assert/strict';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { verifyPassword, WEAK_HASHES_VARIABLE } from '../../src/domain/passwords.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

// The rehash is to the real cost, not the test runner's weak one.
delete process.env[WEAK_HASHES_VARIABLE];

/** A hash as the daemon stored them before scrypt: PBKDF2-HMAC-SHA256 at 65,535 iterations. */
function pbkdf2Hash(password: string): string {
  const salt = randomBytes(16);
  const hash = pbkdf2Sync(password, salt, 65_535, 64, 'sha256');
  const b64 = (buffer: Buffer) => buffer.toString('base64').replace(/=+$/, '');
  return `$pbkdf2-sha256$65535$${b64(salt)}$${b64(hash)}`;
}

async function storedHash(test: TestDaemon, username: string): Promise<string> {
  const row = await test.daemon.store.db
    .selectFrom('users')
    .select('hashed_password')
    .where('username', '=', username)
    .executeTakeFirstOrThrow();
  return row.hashed_password;
}

describe('password hashes are rehashed at sign-in', () => {
  it('replaces a PBKDF2 hash with scrypt when its user signs in, and keeps their sessions', async () => {
    const test = await startTestDaemon();
    try {
      await createOwner(test);
      const member = await createMember(test, 'legacy');
      const old = pbkdf2Hash(STRONG_PASSWORD);
      await test.daemon.store.db.updateTable('users').set({ hashed_password: old }).where('username', '=', 'legacy').execute();

      // A wrong password leaves the old hash as it is.
      await assert.rejects(test.anonymous.login('legacy@example.com', 'Wrong-Horse-Battery-9'));
      assert.equal(await storedHash(test, 'legacy'), old);

      const { session_token } = await test.anonymous.login('legacy@example.com', STRONG_PASSWORD);
      const rehashed = await storedHash(test, 'legacy');
      assert.match(rehashed, /^\$scrypt\$ln=15,r=8,p=3\$/);
      assert.equal(await verifyPassword(STRONG_PASSWORD, rehashed), true);
      // The same password still signs in, now against the new hash, which stays.
      await test.anonymous.login('legacy@example.com', STRONG_PASSWORD);
      assert.equal(await storedHash(test, 'legacy'), rehashed);
      // Sessions made before and by the sign-in that rehashed keep working.
      assert.equal((await member.user('me')).username, 'legacy');
      assert.equal((await test.anonymous.withToken(session_token).user('me')).username, 'legacy');
    } finally {
      await test.close();
    }
  });
});
