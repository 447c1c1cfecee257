import type { AesTokenCipher } from './aes-token-cipher.js';
import { listDbcryptKeys, revokeDbcryptKey } from './queries/dbcrypt-keys.js';
import {
  deleteLinksWithSealedTokens,
  linksNotSealedWith,
  rewriteLinkTokens,
  sealedTokenKeyIds,
  type LinkCursor,
  type SealedTokenRow,
} from './queries/sealed-tokens.js';
import type { Store } from './store.js';
import { checkTokenKeys, TokenKeysError } from './token-keys.js';

/**
 * The work of `cove server dbcrypt`: every sealed column (the access and refresh tokens of
 * external auth links) re-sealed with a new key, opened to plain text, or deleted, and the keys
 * no token needs any more revoked in `dbcrypt_keys`.
 */

/** Links rewritten per transaction: a long walk never holds many rows locked at once. */
const BATCH_SIZE = 200;

/** What a dbcrypt command did. */
export interface TokenRewrapReport {
  /** Links whose tokens were re-sealed, opened or deleted. */
  readonly links: number;
  /** Digests of the keys revoked. */
  readonly revokedKeys: readonly string[];
  /** The digest of the key tokens are sealed with now; null when they are stored as they are. */
  readonly activeKey: string | null;
}

/** Seals every token with the cipher's first key, then revokes its other keys. */
export async function rotateTokenKeys(store: Store, cipher: AesTokenCipher): Promise<TokenRewrapReport> {
  // Refuses tokens of keys not given, and a revoked new key; records the new key.
  await checkTokenKeys(store, cipher, { record: true });
  const links = await rewriteAll(store, cipher.activeKeyId, (row) => {
    const access = cipher.seal(cipher.open({ value: row.oauth_access_token, keyId: row.oauth_access_token_key_id }));
    const refresh = cipher.seal(cipher.open({ value: row.oauth_refresh_token, keyId: row.oauth_refresh_token_key_id }));
    return sealedRow(row, access, refresh);
  });
  await requireOnlySealedWith(store, [cipher.activeKeyId]);
  return { links, revokedKeys: await revoke(store, cipher.keyIds.slice(1)), activeKey: cipher.activeKeyId };
}

/** Stores every token as plain text, then revokes all of the cipher's keys. */
export async function decryptTokens(store: Store, cipher: AesTokenCipher): Promise<TokenRewrapReport> {
  await checkTokenKeys(store, cipher, { record: false });
  const links = await rewriteAll(store, null, (row) => {
    const access = cipher.open({ value: row.oauth_access_token, keyId: row.oauth_access_token_key_id });
    const refresh = cipher.open({ value: row.oauth_refresh_token, keyId: row.oauth_refresh_token_key_id });
    return sealedRow(row, { value: access, keyId: null }, { value: refresh, keyId: null });
  });
  await requireOnlySealedWith(store, []);
  return { links, revokedKeys: await revoke(store, cipher.keyIds), activeKey: null };
}

/** Deletes every link holding a sealed token and revokes every active key: for keys that are lost. */
export async function deleteSealedTokens(store: Store): Promise<TokenRewrapReport> {
  return store.db.transaction().execute(async (trx) => {
    const links = await deleteLinksWithSealedTokens(trx);
    const now = store.nowIso();
    const revokedKeys: string[] = [];
    for (const key of await listDbcryptKeys(trx)) {
      if (key.active_key_digest !== null && (await revokeDbcryptKey(trx, key.active_key_digest, now)))
        revokedKeys.push(key.active_key_digest);
    }
    return { links, revokedKeys, activeKey: null };
  });
}

function sealedRow(
  row: SealedTokenRow,
  access: { value: string; keyId: string | null },
  refresh: { value: string; keyId: string | null },
): SealedTokenRow {
  return {
    provider_id: row.provider_id,
    user_id: row.user_id,
    oauth_access_token: access.value,
    oauth_access_token_key_id: access.keyId,
    oauth_refresh_token: refresh.value,
    oauth_refresh_token_key_id: refresh.keyId,
  };
}

/** Rewrites, batch by batch in key order, every link whose tokens are not both as `wanted` says; returns how many. */
async function rewriteAll(store: Store, wanted: string | null, rewrite: (row: SealedTokenRow) => SealedTokenRow): Promise<number> {
  let rewritten = 0;
  let cursor: LinkCursor | undefined;
  for (;;) {
    const after = cursor;
    const { count, last, full } = await store.db.transaction().execute(async (trx) => {
      const rows = await linksNotSealedWith(trx, wanted, after, { limit: BATCH_SIZE, lock: store.dialect === 'postgres' });
      let done = 0;
      for (const row of rows) if (await rewriteLinkTokens(trx, row, rewrite(row))) done++;
      return { count: done, last: rows.at(-1), full: rows.length === BATCH_SIZE };
    });
    rewritten += count;
    if (!full || last === undefined) return rewritten;
    cursor = { userId: last.user_id, providerId: last.provider_id };
  }
}

/** Refuses to revoke keys while a token still needs one: a daemon wrote with an old key during the walk. */
async function requireOnlySealedWith(store: Store, keyIds: readonly string[]): Promise<void> {
  const stray = (await sealedTokenKeyIds(store.db)).filter((id) => !keyIds.includes(id));
  if (stray.length > 0) {
    throw new TokenKeysError(
      `Tokens encrypted with key ${stray.join(', ')} were written while this ran (a daemon started with that key first?): ` +
        'no key was revoked. Restart the daemons with the new key first, and run the command again.',
    );
  }
}

async function revoke(store: Store, keyIds: readonly string[]): Promise<string[]> {
  const now = store.nowIso();
  const revoked: string[] = [];
  for (const id of keyIds) if (await revokeDbcryptKey(store.db, id, now)) revoked.push(id);
  return revoked;
}
