import { createPublicKey, type KeyObject } from 'node:crypto';

/** The key id of Cove's own license-signing key, named in the header of the licenses it signs. */
export const COVE_LICENSE_KEY_ID = '2026-11-24';

/** Cove's own license-signing public key (Ed25519, SPKI DER in base64). Its private half is never in this repository. */
const COVE_LICENSE_PUBLIC_KEY = 'MCowBQYDK2VwAyEA3K/vwcAqa5vF7YVQQRBKTKoLSGoxTq9rEM7gVM8bKpI=';

/** The keys licenses may be signed with, by key id. */
export type TrustedKeys = ReadonlyMap<string, KeyObject>;

/**
 * Cove's own key and those the deployment adds (`--license-public-keys`, each `KEY_ID=BASE64`).
 * A malformed entry is an error at start-up, not a license that silently fails later.
 */
export function trustedLicenseKeys(extra: readonly string[]): TrustedKeys {
  const keys = new Map<string, KeyObject>([[COVE_LICENSE_KEY_ID, ed25519Key(COVE_LICENSE_PUBLIC_KEY, COVE_LICENSE_KEY_ID)]]);
  for (const entry of extra) {
    const at = entry.indexOf('=');
    if (at <= 0) throw new Error(`license public key "${entry}" must be KEY_ID=BASE64`);
    const id = entry.slice(0, at).trim();
    keys.set(id, ed25519Key(entry.slice(at + 1).trim(), id));
  }
  return keys;
}

function ed25519Key(base64: string, id: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
  } catch (error) {
    throw new Error(`license public key "${id}" is not an SPKI public key: ${(error as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`license public key "${id}" is not an Ed25519 key`);
  return key;
}
