import { AesTokenCipher, decodeTokenKey } from './aes-token-cipher.js';
import { insertDbcryptKey, listDbcryptKeys } from './queries/dbcrypt-keys.js';
import { sealedTokenKeyIds } from './queries/sealed-tokens.js';
import type { Store } from './store.js';
import { PLAINTEXT_TOKENS } from './token-cipher.js';

/** The keys given cannot serve this database; the message says which key and what to do. */
export class TokenKeysError extends Error {}

/** What `dbcrypt_keys.test` holds, sealed with the key: opening it proves a key to be the recorded one. */
const KEY_TEST_VALUE = 'cove';

/** How often recording a new key is tried when another replica records one at the same moment. */
const RECORD_ATTEMPTS = 3;

const KEYS_OPTION = '--external-token-encryption-keys (COVE_EXTERNAL_TOKEN_ENCRYPTION_KEYS)';

/** The cipher of the keys as the option gives them (base64, the sealing key first); none without keys. */
export function tokenCipherOf(keyTexts: readonly string[]): AesTokenCipher | undefined {
  if (keyTexts.length === 0) return undefined;
  return new AesTokenCipher(keyTexts.map((text, index) => decodeTokenKey(text, `key ${index + 1}`)));
}

/**
 * At start: checks the keys against the database and installs their cipher on the store. With
 * keys, the first is recorded in `dbcrypt_keys` if it is new; a revoked first key, and tokens or
 * recorded keys that no given key opens, are refused. Without keys, a database holding sealed
 * tokens is refused: the daemon could not read them, and would store new ones in the clear beside them.
 */
export async function installTokenKeys(store: Store, keyTexts: readonly string[]): Promise<void> {
  const cipher = tokenCipherOf(keyTexts);
  await checkTokenKeys(store, cipher, { record: true });
  store.tokenCipher = cipher ?? PLAINTEXT_TOKENS;
}

/**
 * Checks that `cipher` (or no cipher) can open every token and recorded key of the database, and
 * with `record` records its sealing key; throws TokenKeysError otherwise.
 */
export async function checkTokenKeys(
  store: Store,
  cipher: AesTokenCipher | undefined,
  options: { readonly record: boolean },
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await checkOnce(store, cipher, options.record);
      return;
    } catch (error) {
      // A replica starting beside this one may have recorded the same key first: look again.
      if (error instanceof TokenKeysError || attempt >= RECORD_ATTEMPTS) throw error;
    }
  }
}

async function checkOnce(store: Store, cipher: AesTokenCipher | undefined, record: boolean): Promise<void> {
  const recorded = await listDbcryptKeys(store.db);
  const active = recorded.flatMap((key) => (key.active_key_digest === null ? [] : [key.active_key_digest]));
  const needed = [...new Set([...active, ...(await sealedTokenKeyIds(store.db))])];
  if (cipher === undefined) {
    if (needed.length > 0) {
      throw new TokenKeysError(
        `The database holds tokens encrypted with key ${needed.join(', ')}, and no encryption keys are given. Start with ` +
          `${KEYS_OPTION} giving that key; or store the tokens as plain text first with "cove server dbcrypt decrypt --keys <key>"; ` +
          'or, if the key is lost, remove those tokens with "cove server dbcrypt delete" (their users link again).',
      );
    }
    return;
  }
  const revoked = recorded.find((key) => key.revoked_key_digest === cipher.activeKeyId);
  if (revoked !== undefined) {
    throw new TokenKeysError(
      `The first key of ${KEYS_OPTION} (key ${cipher.activeKeyId}) was revoked at ${revoked.revoked_at ?? 'an unknown time'} and ` +
        'may not encrypt again. Put a new key first, and move the tokens to it with "cove server dbcrypt rotate".',
    );
  }
  for (const digest of needed) {
    if (!cipher.hasKey(digest)) {
      throw new TokenKeysError(
        `The database holds tokens encrypted with key ${digest}, which ${KEYS_OPTION} does not give. Add that key after the first ` +
          '(and move the tokens to the first with "cove server dbcrypt rotate"); or, if it is lost, remove the tokens it ' +
          'encrypted with "cove server dbcrypt delete" (their users link again).',
      );
    }
  }
  for (const key of recorded) {
    if (key.active_key_digest === null) continue;
    let test: string;
    try {
      test = cipher.open({ value: key.test, keyId: key.active_key_digest });
    } catch {
      test = '';
    }
    if (test !== KEY_TEST_VALUE)
      throw new TokenKeysError(
        `The key given for ${key.active_key_digest} does not open that key's test value: it is not the recorded key.`,
      );
  }
  if (!record || active.includes(cipher.activeKeyId)) return;
  const number = Math.max(0, ...recorded.map((key) => key.number)) + 1;
  await insertDbcryptKey(store.db, { number, digest: cipher.activeKeyId, test: cipher.seal(KEY_TEST_VALUE).value, now: store.nowIso() });
}
