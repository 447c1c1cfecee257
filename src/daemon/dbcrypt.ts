import { AesTokenCipher, decodeTokenKey } from '../store/aes-token-cipher.js';
import { TokenKeysError } from '../store/token-keys.js';
import { decryptTokens, deleteSealedTokens, rotateTokenKeys, type TokenRewrapReport } from '../store/token-rewrap.js';
import { withOfflineStore, type DatabaseLocation } from './offline-user-admin.js';

export { TokenKeysError } from '../store/token-keys.js';
export type { AesTokenCipher } from '../store/aes-token-cipher.js';
export type { TokenRewrapReport } from '../store/token-rewrap.js';

/**
 * `cove server dbcrypt`: the tokens of the daemon's database moved to a new key, opened to plain
 * text, or deleted, with no daemon needed. Keys come as base64 text, as the daemon's option takes them.
 */

/** The cipher of the keys given, the first sealing; a key that is not base64 of 32 bytes is refused, naming it. */
export function dbcryptCipher(keys: readonly { readonly text: string; readonly label: string }[]): AesTokenCipher {
  if (keys.length === 0) throw new TokenKeysError('No keys were given.');
  const decoded = keys.map(({ text, label }) => {
    try {
      return decodeTokenKey(text, label);
    } catch (error) {
      throw new TokenKeysError((error as Error).message);
    }
  });
  decoded.forEach((key, index) => {
    const earlier = decoded.findIndex((other) => other.equals(key));
    if (earlier !== index) throw new TokenKeysError(`${keys[index]?.label ?? 'a key'} is the same as ${keys[earlier]?.label ?? 'another'}`);
  });
  return new AesTokenCipher(decoded);
}

/** Re-seals every token with the cipher's first key (opening them with any of its keys) and revokes the others. */
export async function rotateTokenEncryption(location: DatabaseLocation, cipher: AesTokenCipher): Promise<TokenRewrapReport> {
  return withOfflineStore(location, (store) => rotateTokenKeys(store, cipher));
}

/** Stores every token as plain text (opening them with the cipher's keys) and revokes those keys. */
export async function decryptTokenEncryption(location: DatabaseLocation, cipher: AesTokenCipher): Promise<TokenRewrapReport> {
  return withOfflineStore(location, (store) => decryptTokens(store, cipher));
}

/** Deletes every link whose tokens are sealed, and revokes every key: for keys that are lost. */
export async function deleteEncryptedTokens(location: DatabaseLocation): Promise<TokenRewrapReport> {
  return withOfflineStore(location, (store) => deleteSealedTokens(store));
}
