import { createHash } from 'node:crypto';
import { HttpProblem } from '../lib/errors.js';
import type { AuthorizedStore } from '../store/authorized-store.js';

/** Wrong guesses an account is allowed before its attempts are paced. */
export const FREE_FAILURES = 5;
/** The pause after the last free failure; each further failure doubles it, up to the cap. */
const FIRST_PAUSE_MS = 1000;
/**
 * The longest pause. Kept short on purpose: whoever knows an email can cause it, so it must not
 * become a way to lock the account's owner out; at one guess per 30 s, guessing a password that
 * passed the strength rules takes longer than anyone waits.
 */
export const MAX_PAUSE_MS = 30_000;
/** A count whose last attempt is this old starts over. */
const FORGET_AFTER_MS = 15 * 60_000;

/** The secret an attempt guesses: an account's password, or a one-time passcode sent to it. */
export type GuessedSecret = 'password' | 'one-time-passcode';

/** The wait before the next attempt once `failures` attempts are counted. */
export function pauseAfter(failures: number): number {
  if (failures < FREE_FAILURES) return 0;
  return Math.min(FIRST_PAUSE_MS * 2 ** (failures - FREE_FAILURES), MAX_PAUSE_MS);
}

/**
 * The key an account's attempts count under, whether or not an account has the email (a pause
 * only for existing accounts would tell which exist): lower-cased first, as the lookup does, so
 * every spelling that finds one account counts against it. Hashed: the emails typed are not kept.
 */
function accountKey(secret: GuessedSecret, email: string, knownAddress: string | undefined): string {
  const normalized = email.toLowerCase().trim().normalize('NFKC');
  const from = knownAddress === undefined ? '' : `\n${knownAddress}`;
  return createHash('sha256').update(`${secret}\n${normalized}${from}`).digest('hex');
}

/** One attempt at an account's secret, counted before the secret is checked. */
export interface SignInAttempt {
  /** Call once the secret checked out: the account's count starts over. */
  succeeded(): Promise<void>;
}

/**
 * Counts an attempt to guess `secret` of the account with `email`, or refuses it with a 429 that
 * says when to try again, without the secret being checked, while the account's attempts are paced.
 * Counted in the database, so the pace holds across addresses, spellings of the path and replicas.
 *
 * `knownAddress` is given when the attempt comes from an address the account already has a key
 * used from: such attempts are counted apart, so that guesses from elsewhere, which anyone who
 * knows the email can send every half minute, never pause the account's owner where they sign in.
 * Guesses from that address are still paced (and limited per address by the sign-in rate limit).
 */
export async function beginSignInAttempt(
  store: AuthorizedStore,
  secret: GuessedSecret,
  email: string,
  now: Date,
  knownAddress?: string,
): Promise<SignInAttempt> {
  const account = accountKey(secret, email, knownAddress);
  const claim = await store.signIn.claimAttempt(account, { backoffMs: pauseAfter, forgetAfterMs: FORGET_AFTER_MS });
  if (!claim.allowed) {
    const waitMs = claim.blockedUntil === undefined ? FIRST_PAUSE_MS : Date.parse(claim.blockedUntil) - now.getTime();
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    const what = secret === 'password' ? 'passwords' : 'one-time passcodes';
    throw new HttpProblem(
      429,
      `Too many failed sign-in attempts for this account. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`,
      {
        detail: `After ${FREE_FAILURES} wrong ${what}, each further attempt for the account waits, from ${FIRST_PAUSE_MS / 1000} second doubling to at most ${MAX_PAUSE_MS / 1000} seconds; the right one starts the count over.`,
        headers: { 'retry-after': String(seconds) },
      },
    );
  }
  // The right secret proves the owner: both counts start over, the address's and everyone else's.
  const everywhere = accountKey(secret, email, undefined);
  return {
    succeeded: async () => {
      await store.signIn.forgetFailures(account);
      if (everywhere !== account) await store.signIn.forgetFailures(everywhere);
    },
  };
}
