import { createHash, timingSafeEqual } from 'node:crypto';
import { ConflictError, HttpProblem } from '../lib/errors.js';
import { randomAlphanumeric } from '../lib/random.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { SignInStateRow } from '../store/rows.js';

/** The cookie that ties a sign-in under way to the browser that started it. */
export const SIGN_IN_STATE_COOKIE = 'cove_sign_in_state';

/** How long a user may take at the provider before the sign-in must start over. */
export const SIGN_IN_VALIDITY_MS = 10 * 60 * 1000;

/** The providers a browser can sign in through. */
export type SignInProvider = 'oidc' | 'github';

/** A sign-in under way: what the provider must echo back, and what to do once it has. */
export interface PendingSignIn {
  readonly provider: SignInProvider;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  readonly redirect: string;
  readonly convertUserId: string | undefined;
}

/**
 * Starts a sign-in: fresh state, nonce and PKCE verifier, kept in the database under a hash of
 * the state. A conversion brings its own state (the one `convert-login` answered), so a
 * conversion can be started once: the second insert of the same state conflicts.
 */
export async function beginSignIn(
  store: AuthorizedStore,
  input: {
    readonly provider: SignInProvider;
    readonly redirect: string;
    readonly conversion?: { readonly state: string; readonly userId: string };
  },
  now: Date,
): Promise<PendingSignIn> {
  const pending: PendingSignIn = {
    provider: input.provider,
    state: input.conversion?.state ?? randomAlphanumeric(43),
    nonce: randomAlphanumeric(43),
    codeVerifier: randomAlphanumeric(64),
    redirect: input.redirect,
    convertUserId: input.conversion?.userId,
  };
  try {
    await store.signIn.insertState({
      state_hash: hashState(pending.state),
      provider: pending.provider,
      nonce: pending.nonce,
      code_verifier: pending.codeVerifier,
      redirect: pending.redirect,
      convert_user_id: pending.convertUserId ?? null,
      expires_at: new Date(now.getTime() + SIGN_IN_VALIDITY_MS).toISOString(),
    });
  } catch (error) {
    if (input.conversion && error instanceof ConflictError)
      throw new HttpProblem(400, 'This login type conversion was started already. Start a new one with convert-login.');
    throw error;
  }
  return pending;
}

/**
 * Spends the state a provider sent the browser back with. It must be the state of the cookie this
 * browser was given (else someone else's sign-in is being pushed into this browser), it must be
 * known (not forged, not spent before) and unexpired. Every refusal spends nothing it did not own.
 */
export async function finishSignIn(
  store: AuthorizedStore,
  provider: SignInProvider,
  presented: { readonly state: string | undefined; readonly cookie: string | undefined },
  now: Date,
): Promise<PendingSignIn> {
  const { state, cookie } = presented;
  if (!state) throw new HttpProblem(400, 'The sign-in came back without a state.', { detail: 'Start the sign-in again.' });
  if (!cookie || !sameText(state, cookie)) {
    throw new HttpProblem(400, 'The sign-in state does not match this browser.', {
      detail: 'The state in the URL is not the one this browser was given when the sign-in started. Start the sign-in again.',
    });
  }
  const row: SignInStateRow | undefined = await store.signIn.takeState(hashState(state));
  if (!row || row.provider !== provider) {
    throw new HttpProblem(400, 'The sign-in state is unknown or was used already.', { detail: 'Start the sign-in again.' });
  }
  if (Date.parse(row.expires_at) <= now.getTime()) {
    throw new HttpProblem(400, 'The sign-in took too long and expired.', { detail: 'Start the sign-in again.' });
  }
  return {
    provider,
    state,
    nonce: row.nonce,
    codeVerifier: row.code_verifier,
    redirect: row.redirect,
    convertUserId: row.convert_user_id ?? undefined,
  };
}

/**
 * Where to send the browser once signed in: a path on this deployment only. Anything else (an
 * absolute URL, `//host`, a backslash trick) becomes `/`, so the sign-in cannot be used to send
 * users to another site.
 */
export function safeRedirect(raw: string | undefined): string {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) return '/';
  // Control characters could split headers or confuse URL parsers.
  if (/[\u0000-\u001f\u007f]/.test(raw)) return '/';
  const parsed = new URL(raw, 'http://placeholder.invalid');
  if (parsed.origin !== 'http://placeholder.invalid') return '/';
  return `${parsed.pathname}${parsed.search}${parsed.hash}`;
}

function hashState(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
