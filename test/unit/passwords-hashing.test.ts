import assert from 'node:assert/strict';
import { pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { hashPassword, needsRehash, verifyPassword, WEAK_HASHES_VARIABLE } from '../../src/domain/passwords.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

// This file is about the real cost: the test runner's weak one is asked for in its own case.
delete process.env[WEAK_HASHES_VARIABLE];

const PASSWORD = 'Correct-Horse-Battery-9';

/** A hash in the format made before scrypt: PBKDF2-HMAC-SHA256 at 65,535 iterations. */
function pbkdf2Hash(password: string): string {
  const salt = randomBytes(16);
  const hash = pbkdf2Sync(password, salt, 65_535, 64, 'sha256');
  return `$pbkdf2-sha256$65535$${salt.toString('base64').replace(/=+$/, '')}$${hash.toString('base64').replace(/=+$/, '')}`;
}

/** A scrypt hash at a cost of our choosing, in the stored format. */
function scryptHash(password: string, cost: { ln: number; r: number; p: number }): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, { N: 2 ** cost.ln, r: cost.r, p: cost.p, maxmem: 512 * 1024 * 1024 });
  const b64 = (buffer: Buffer) => buffer.toString('base64').replace(/=+$/, '');
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${b64(salt)}$${b64(hash)}`;
}

describe('password hashing', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  it('hashes with scrypt at N=2^15, r=8, p=3, in a format that names its cost, with a fresh salt each time', async () => {
    const first = await hashPassword(PASSWORD);
    const second = await hashPassword(PASSWORD);
    assert.match(first, /^\$scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    assert.notEqual(first, second);
    assert.equal(await verifyPassword(PASSWORD, first), true);
    assert.equal(await verifyPassword(`${PASSWORD}x`, first), false);
    assert.equal(needsRehash(first), false);
  });

  it('hashes weakly only under the test variable, and a daemon without it replaces those hashes', async () => {
    process.env[WEAK_HASHES_VARIABLE] = '1';
    let weak: string;
    try {
      weak = await hashPassword(PASSWORD);
      assert.match(weak, /^\$scrypt\$ln=10,r=8,p=1\$/);
      assert.equal(needsRehash(weak), false);
    } finally {
      delete process.env[WEAK_HASHES_VARIABLE];
    }
    assert.equal(await verifyPassword(PASSWORD, weak), true);
    assert.equal(needsRehash(weak), true);
    assert.match(await hashPassword(PASSWORD), /^\$scrypt\$ln=15,r=8,p=3\$/);
  });

  it('verifies the PBKDF2 hashes made before, and asks for them to be rehashed', async () => {
    const old = pbkdf2Hash(PASSWORD);
    assert.equal(await verifyPassword(PASSWORD, old), true);
    assert.equal(await verifyPassword('Wrong-Horse-Battery-9', old), false);
    assert.equal(needsRehash(old), true);
  });

  it('asks to rehash scrypt hashes with less memory or less work, not those with as much or more', async () => {
    const weaker = scryptHash(PASSWORD, { ln: 14, r: 8, p: 1 });
    assert.equal(await verifyPassword(PASSWORD, weaker), true);
    assert.equal(needsRehash(weaker), true);
    assert.equal(needsRehash(scryptHash(PASSWORD, { ln: 15, r: 8, p: 1 })), true);
    // OWASP's equivalent with more memory and one lane: as strong, so left alone.
    const stronger = scryptHash(PASSWORD, { ln: 17, r: 8, p: 1 });
    assert.equal(await verifyPassword(PASSWORD, stronger), true);
    assert.equal(needsRehash(stronger), false);
  });

  it('never matches what is not a hash of ours, and refuses costs that would take gigabytes', async () => {
    for (const stored of ['', 'plain', '$scrypt$ln=15,r=8,p=3$$', '$md5$1$abc$def', '$scrypt$ln=30,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAA']) {
      assert.equal(await verifyPassword(PASSWORD, stored), false, stored);
      assert.equal(needsRehash(stored), true, stored);
    }
  });
});
