import { randomUUID } from 'node:crypto';
import { HttpProblem } from '../lib/errors.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { DeploymentValues } from './deployment-options.js';
import type { Mailer } from './mailer.js';
import { hashPassword, passwordWeakness, verifyPassword } from './passwords.js';
import { beginSignInAttempt } from './sign-in-throttle.js';
import { userByEmail } from './users.js';

/** How long a one-time passcode stays valid, as in the reference. */
export const ONE_TIME_PASSCODE_VALIDITY_MS = 20 * 60 * 1000;

/** Where failures to deliver a passcode are reported. Never given the passcode itself. */
export interface PasscodeLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

const INCORRECT = 'Incorrect email or one-time passcode.';

/**
 * Issues a passcode for the password user with this email and mails it. Answers the same for
 * unknown emails, and hashes a passcode for them too, so neither the answer nor its timing says
 * whether an account exists. Delivery runs after the answer; a failure is logged without the code.
 * `store` is the password-reset subject's: whoever asks is not signed in.
 */
export async function requestOneTimePasscode(
  store: AuthorizedStore,
  delivery: { readonly values: DeploymentValues; readonly mailer: Mailer; readonly log: PasscodeLog },
  email: string,
  now: Date,
): Promise<void> {
  const { values, mailer, log } = delivery;
  if (values.disablePasswordAuth) throw new HttpProblem(403, 'Password authentication is disabled.');
  const user = await userByEmail(store, email);
  const passcode = randomUUID();
  const hashed = await hashPassword(passcode);
  if (!user || user.login_type !== 'password' || user.status === 'suspended') return;
  const expiresAt = new Date(now.getTime() + ONE_TIME_PASSCODE_VALIDITY_MS);
  await store.signIn.storePasscode(user, hashed, expiresAt.toISOString());
  mailer
    .send({
      to: user.email,
      subject: 'Your one-time passcode',
      text: [
        `Hi ${user.name || user.username},`,
        '',
        'A one-time passcode was requested to reset the password of your Cove account.',
        '',
        `Passcode: ${passcode}`,
        '',
        `It is valid until ${expiresAt.toISOString()} and works once. If you did not ask for it, ignore this mail.`,
      ].join('\n'),
    })
    .catch((error: unknown) => {
      log.warn(
        { user_id: user.id, reason: error instanceof Error ? error.message : String(error) },
        'could not send the one-time passcode email',
      );
    });
}

/** The body of `POST /users/otp/change-password`. */
export interface PasscodePasswordChange {
  readonly email: string;
  readonly one_time_passcode: string;
  readonly password: string;
}

/**
 * Replaces a password with a valid, unexpired passcode. The passcode is used up and every session
 * and token of the user ends, since whoever held them may be why the password is being reset.
 * `store` is the password-reset subject's: whoever asks is not signed in.
 */
export async function changePasswordWithPasscode(
  store: AuthorizedStore,
  values: DeploymentValues,
  input: PasscodePasswordChange,
  now: Date,
): Promise<void> {
  if (values.disablePasswordAuth) throw new HttpProblem(403, 'Password authentication is disabled.');
  const weakness = passwordWeakness(input.password);
  if (weakness) throw new HttpProblem(400, 'Invalid password.', { validations: [{ field: 'password', detail: weakness }] });
  const attempt = await beginSignInAttempt(store, 'one-time-passcode', input.email, now);
  const user = await userByEmail(store, input.email);
  const matches = await verifyPassword(input.one_time_passcode, user?.hashed_one_time_passcode ?? '');
  const expiresAt = user?.one_time_passcode_expires_at;
  const expired = !expiresAt || Date.parse(expiresAt) <= now.getTime();
  if (!user || !matches || expired) throw new HttpProblem(400, INCORRECT);
  await attempt.succeeded();
  if (await verifyPassword(input.password, user.hashed_password)) {
    throw new HttpProblem(400, 'New password cannot match old password.');
  }
  const hashed = await hashPassword(input.password);
  // Only the passcode that was checked may be spent: a concurrent reset with the same code loses.
  if (!(await store.signIn.resetPasswordWithPasscode(user, hashed))) throw new HttpProblem(400, INCORRECT);
}
