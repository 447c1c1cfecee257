import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { SealedToken, TokenCipher } from './token-cipher.js';

/** Bytes of a key: AES-256. */
const KEY_BYTES = 32;
/** Bytes of the random nonce each sealed value begins with: GCM's standard size. */
const NONCE_BYTES = 12;
/** Bytes of the authentication tag each sealed value ends with. */
const TAG_BYTES = 16;
/**
 * Hashed in before the key to name it: a key reused with another cipher one day gets another
 * name, so values of one cipher are never handed to the other. The reference names its keys the same way.
 */
const CIPHER_NAME = 'aes256gcm';
/** Hex characters of the key's SHA-256 that name it, as the reference's `dbcrypt_keys` holds them. */
const DIGEST_CHARS = 7;

/** A sealed token that cannot be opened: the wrong key, or text changed since it was sealed. */
export class TokenDecryptError extends Error {}

/** The name a key goes by in the database: the start of SHA-256 over the cipher's name and the key. */
export function tokenKeyDigest(key: Buffer): string {
  return createHash('sha256').update(CIPHER_NAME).update(key).digest('hex').slice(0, DIGEST_CHARS);
}

/**
 * Reads a key as `--external-token-encryption-keys` gives it: standard base64 of exactly 32 bytes.
 * Node's decoder skips characters it does not know, so the text is checked first: a typo must not
 * become another key. `label` names the key in the message ("key 2 of COVE_…").
 */
export function decodeTokenKey(text: string, label: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(trimmed) || trimmed.length % 4 !== 0) {
    throw new Error(`${label} is not base64`);
  }
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`${label} is ${key.length} bytes after base64; a key must be exactly ${KEY_BYTES}`);
  return key;
}

/**
 * AES-256-GCM over tokens, with several keys for rotation: the first key seals, every key opens.
 * A sealed value is base64 of the nonce, the cipher text and the tag, in that order (the layout
 * of the reference's columns), and its `_key_id` is the sealing key's digest.
 */
export class AesTokenCipher implements TokenCipher {
  readonly #keys: ReadonlyMap<string, Buffer>;
  /** The digest of the key that seals. */
  readonly activeKeyId: string;

  constructor(keys: readonly Buffer[]) {
    const [first] = keys;
    if (first === undefined) throw new Error('an AES token cipher needs at least one key');
    const byDigest = new Map<string, Buffer>();
    for (const key of keys) {
      if (key.length !== KEY_BYTES) throw new Error(`a token key must be ${KEY_BYTES} bytes, not ${key.length}`);
      byDigest.set(tokenKeyDigest(key), Buffer.from(key));
    }
    this.#keys = byDigest;
    this.activeKeyId = tokenKeyDigest(first);
  }

  /** The digests of every key, the sealing one first. */
  get keyIds(): readonly string[] {
    return [...this.#keys.keys()];
  }

  /** Whether the key of digest `keyId` is one of this cipher's. */
  hasKey(keyId: string): boolean {
    return this.#keys.has(keyId);
  }

  seal(token: string): SealedToken {
    const key = this.#key(this.activeKeyId);
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return { value: Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64'), keyId: this.activeKeyId };
  }

  open(stored: SealedToken): string {
    if (stored.keyId === null) return stored.value;
    if (!this.#keys.has(stored.keyId)) {
      throw new TokenDecryptError(
        `A token in the database was encrypted with key ${stored.keyId}, which is not among the configured keys.`,
      );
    }
    const key = this.#key(stored.keyId);
    const sealed = Buffer.from(stored.value, 'base64');
    if (sealed.length < NONCE_BYTES + TAG_BYTES || sealed.toString('base64') !== stored.value) {
      throw new TokenDecryptError(`A token encrypted with key ${stored.keyId} is malformed.`);
    }
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      // GCM checks the tag at the end: a wrong key or changed text is refused, never returned garbled.
      throw new TokenDecryptError(
        `A token encrypted with key ${stored.keyId} does not open with that key: it was changed, or the key is not the one that sealed it.`,
      );
    }
  }

  #key(keyId: string): Buffer {
    const key = this.#keys.get(keyId);
    if (key === undefined) throw new TokenDecryptError(`no token key ${keyId}`);
    return key;
  }
}
