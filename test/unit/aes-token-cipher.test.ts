import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { AesTokenCipher, decodeTokenKey, TokenDecryptError, tokenKeyDigest } from '../../src/store/aes-token-cipher.js';
import { PLAINTEXT_TOKENS } from '../../src/store/token-cipher.js';

const keyA = Buffer.alloc(32, 1);
const keyB = Buffer.alloc(32, 2);

describe('AES-256-GCM token cipher', () => {
  it('names a key as the reference does: 7 hex characters of SHA-256 over "aes256gcm" and the key', () => {
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.from('aes256gcm'), keyA]))
      .digest('hex')
      .slice(0, 7);
    assert.equal(tokenKeyDigest(keyA), expected);
    assert.match(tokenKeyDigest(keyA), /^[0-9a-f]{7}$/);
    assert.notEqual(tokenKeyDigest(keyA), tokenKeyDigest(keyB));
  });

  it('seals with a fresh nonce each time into base64 of nonce, text and tag, and opens what it sealed', () => {
    const cipher = new AesTokenCipher([keyA]);
    const token = 'gho_secret-token-ü';
    const first = cipher.seal(token);
    const second = cipher.seal(token);
    assert.equal(first.keyId, tokenKeyDigest(keyA));
    assert.notEqual(first.value, second.value, 'a random nonce per seal');
    assert.ok(!first.value.includes(token));
    const raw = Buffer.from(first.value, 'base64');
    assert.equal(raw.length, 12 + Buffer.byteLength(token) + 16);
    assert.equal(cipher.open(first), token);
    assert.equal(cipher.open(second), token);
    assert.equal(cipher.open(cipher.seal('')), '', 'an empty refresh token too');
  });

  it('seals with the first key and opens with every key; a value of another key is refused', () => {
    const old = new AesTokenCipher([keyB]);
    const sealedOld = old.seal('old-token');
    const both = new AesTokenCipher([keyA, keyB]);
    assert.equal(both.activeKeyId, tokenKeyDigest(keyA));
    assert.deepEqual(both.keyIds, [tokenKeyDigest(keyA), tokenKeyDigest(keyB)]);
    assert.equal(both.open(sealedOld), 'old-token');
    assert.equal(both.seal('new').keyId, tokenKeyDigest(keyA));
    const onlyA = new AesTokenCipher([keyA]);
    assert.throws(
      () => onlyA.open(sealedOld),
      (error: unknown) => error instanceof TokenDecryptError && error.message.includes(tokenKeyDigest(keyB)),
    );
  });

  it('refuses tampered text and a wrong key under the right name, never returning garbage', () => {
    const cipher = new AesTokenCipher([keyA]);
    const sealed = cipher.seal('a-token-of-some-length');
    const raw = Buffer.from(sealed.value, 'base64');
    for (const index of [0, 12, raw.length - 1]) {
      const changed = Buffer.from(raw);
      changed[index] = (changed[index] ?? 0) ^ 1;
      assert.throws(() => cipher.open({ value: changed.toString('base64'), keyId: sealed.keyId }), TokenDecryptError);
    }
    assert.throws(() => cipher.open({ value: raw.subarray(0, 20).toString('base64'), keyId: sealed.keyId }), TokenDecryptError);
    assert.throws(() => cipher.open({ value: 'not base64!!', keyId: sealed.keyId }), TokenDecryptError);
    // Another key posing under this key's digest (a corrupted key id column) fails the tag check.
    const other = new AesTokenCipher([keyB]).seal('x');
    assert.throws(() => cipher.open({ value: other.value, keyId: sealed.keyId }), TokenDecryptError);
    assert.equal(cipher.open({ value: 'as-is', keyId: null }), 'as-is', 'a token stored as is is returned as is');
  });

  it('reads keys as strict base64 of 32 bytes', () => {
    const text = randomBytes(32).toString('base64');
    assert.equal(decodeTokenKey(text, 'key 1').toString('base64'), text);
    assert.throws(() => decodeTokenKey(randomBytes(16).toString('base64'), 'key 2'), /key 2 is 16 bytes after base64/);
    assert.throws(() => decodeTokenKey(`${text.slice(0, -2)}*=`, 'key 3'), /key 3 is not base64/);
    assert.throws(() => new AesTokenCipher([]), /at least one key/);
    assert.throws(() => new AesTokenCipher([Buffer.alloc(16)]), /32 bytes/);
  });

  it('the plain-text cipher refuses a sealed value instead of returning it', () => {
    const sealed = new AesTokenCipher([keyA]).seal('t');
    assert.throws(() => PLAINTEXT_TOKENS.open(sealed), /no encryption keys are configured/);
  });
});
