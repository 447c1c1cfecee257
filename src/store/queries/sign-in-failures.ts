import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** How an account's attempts are paced: the wait after a number of counted attempts, and when a count is forgotten. */
export interface SignInPacing {
  /** Now, as an ISO time. */
  readonly now: string;
  /** Counts whose last attempt is older than this (ISO) start over. */
  readonly forgetBefore: string;
  /** Until when (ISO) further attempts wait once this many attempts are counted. */
  blockedUntil(failures: number): string;
}

/** Whether an attempt may check its secret; if not, when the account's next attempt may. */
export type AttemptClaim = { readonly allowed: true } | { readonly allowed: false; readonly blockedUntil: string | undefined };

/** Concurrent attempts for one account that lose the race to count themselves try again this often. */
const CLAIM_TRIES = 5;

/**
 * Counts an attempt against `account` before its secret is checked, unless the account is waiting
 * out a pause: counting first, in one compare-and-set, means attempts sent all at once (from many
 * addresses, to many replicas) are counted one by one, and those past the free ones wait, rather
 * than all being checked against a count none of them has raised yet. A success forgets the count.
 * An attempt that keeps losing the race is refused, without a time: many at once for one account
 * is what this is for.
 */
export async function claimSignInAttempt(db: Kysely<Database>, account: string, pacing: SignInPacing): Promise<AttemptClaim> {
  for (let attempt = 0; attempt < CLAIM_TRIES; attempt++) {
    const row = await db.selectFrom('sign_in_failures').selectAll().where('account', '=', account).executeTakeFirst();
    if (row && row.blocked_until > pacing.now) return { allowed: false, blockedUntil: row.blocked_until };
    const failures = row && row.last_attempt_at >= pacing.forgetBefore ? row.failures + 1 : 1;
    const values = { failures, blocked_until: pacing.blockedUntil(failures), last_attempt_at: pacing.now };
    if (!row) {
      // A new account's first count forgets the stale ones, so guesses at made-up emails do not pile up.
      await db.deleteFrom('sign_in_failures').where('last_attempt_at', '<', pacing.forgetBefore).execute();
      const inserted = await db
        .insertInto('sign_in_failures')
        .values({ account, ...values })
        .onConflict((oc) => oc.column('account').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { allowed: true };
    } else {
      const updated = await db
        .updateTable('sign_in_failures')
        .set(values)
        .where('account', '=', account)
        .where('failures', '=', row.failures)
        .where('last_attempt_at', '=', row.last_attempt_at)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) return { allowed: true };
    }
  }
  return { allowed: false, blockedUntil: undefined };
}

/** Forgets an account's count: its secret was just given right. */
export async function forgetSignInFailures(db: Kysely<Database>, account: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('account', '=', account).execute();
}
