/**
 * How the store keeps OAuth tokens at rest. A token column holds either the token as is (no key
 * configured) or the token sealed with a key, and a `_key_id` column beside it names that key by
 * its digest. The daemon installs the cipher of `--external-token-encryption-keys` on the store at
 * start; until then (and without keys) tokens are stored as is, as the reference does.
 */

/** A token as stored: the column's text and the digest of the key that sealed it (null: as is). */
export interface SealedToken {
  readonly value: string;
  readonly keyId: string | null;
}

/** Seals tokens before they are written and opens them after they are read. */
export interface TokenCipher {
  /** Seals `token` with the active key; returns it as is when no key is configured. */
  seal(token: string): SealedToken;
  /** The token a column holds; throws when the key that sealed it is not configured. */
  open(stored: SealedToken): string;
}

/** The cipher of a deployment with no encryption keys: tokens are stored as they are. */
export const PLAINTEXT_TOKENS: TokenCipher = {
  seal: (token) => ({ value: token, keyId: null }),
  open(stored) {
    if (stored.keyId !== null) {
      throw new Error(
        `A token in the database was encrypted with key ${stored.keyId}, and no encryption keys are configured: start with --external-token-encryption-keys.`,
      );
    }
    return stored.value;
  },
};
