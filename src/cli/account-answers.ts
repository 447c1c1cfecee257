import { userInfo } from 'node:os';
import { nameRuleError } from '../lib/name-rule.js';
import { passwordWeakness } from '../lib/password-strength.js';
import type { CliIo } from './io.js';
import { askUntilValid, prompt } from './prompt.js';

/**
 * The answers a new account is made of, checked as they are typed (sign-up in `cove login`, and
 * `cove users create`), so that a typo costs one question rather than the whole command.
 */

/** What is wrong with an email address typed at the prompt, or undefined. */
export function emailProblem(email: string): string | undefined {
  if (email === '') return 'An email address is required.';
  return /^[^\s@]+@[^\s@]+$/.test(email) ? undefined : `"${email}" is not an email address.`;
}

/** What is wrong with a username typed at the prompt (the rule in words), or undefined. */
export function usernameProblem(name: string): string | undefined {
  if (nameRuleError(name) === undefined) return undefined;
  const problem = name === '' ? 'A username is required' : `"${name}" is not a valid username`;
  return `${problem}: 1 to 32 letters or digits, with single hyphens between them.`;
}

/** The name of the person at this computer, offered as the username when it is a valid one. */
export function systemUsername(): string | undefined {
  try {
    const name = userInfo().username;
    return nameRuleError(name) === undefined ? name : undefined;
  } catch {
    // No user entry for this process (a container's bare uid): nothing to offer.
    return undefined;
  }
}

/**
 * A password typed twice: a weak one, or a confirmation that differs, asks for it again. With
 * `allowEmpty`, an empty answer is returned as it is (for "empty: generate one").
 */
export async function askNewPassword(io: CliIo, question: string, options: { readonly allowEmpty?: boolean } = {}): Promise<string> {
  for (;;) {
    const password = await askUntilValid(
      io,
      question,
      (typed) => (typed === '' && options.allowEmpty === true ? undefined : passwordWeakness(typed)),
      { secret: true },
    );
    if (password === '') return password;
    const again = await prompt(io, 'Confirm password: ', { secret: true });
    if (again === password) return password;
    io.stderr.write('The passwords do not match; type the password again.\n');
  }
}
