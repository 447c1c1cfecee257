import type { Kysely, Selectable } from 'kysely';
import { generateEd25519KeyPair } from '../../lib/ssh-key-pair.js';
import type { Database, GitSshKeyTable } from '../schema.js';

export type GitSshKeyRow = Selectable<GitSshKeyTable>;

/**
 * The user's key pair, made on first use. Two first uses at once both end with the one row that
 * won the insert, so a user never sees their key change under them.
 */
export async function ensureGitSshKey(db: Kysely<Database>, userId: string, now: string): Promise<GitSshKeyRow> {
  const existing = await db.selectFrom('git_ssh_keys').selectAll().where('user_id', '=', userId).executeTakeFirst();
  if (existing) return existing;
  const pair = generateEd25519KeyPair();
  await db
    .insertInto('git_ssh_keys')
    .values({ user_id: userId, created_at: now, updated_at: now, private_key: pair.privateKey, public_key: pair.publicKey })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
  return db.selectFrom('git_ssh_keys').selectAll().where('user_id', '=', userId).executeTakeFirstOrThrow();
}

/** Replaces the user's key pair with a new one (making it if there was none). */
export async function regenerateGitSshKey(db: Kysely<Database>, userId: string, now: string): Promise<GitSshKeyRow> {
  const current = await ensureGitSshKey(db, userId, now);
  const pair = generateEd25519KeyPair();
  await db
    .updateTable('git_ssh_keys')
    .set({ private_key: pair.privateKey, public_key: pair.publicKey, updated_at: now })
    .where('user_id', '=', userId)
    .execute();
  return { ...current, private_key: pair.privateKey, public_key: pair.publicKey, updated_at: now };
}
