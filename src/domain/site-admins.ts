import { HttpProblem, NotFoundError } from '../lib/errors.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { UserRow } from '../store/rows.js';
import { hashPassword, passwordWeakness } from './passwords.js';
import { checkNewUserFields, isDuplicateUser, newUserRow } from './users.js';

/** What `cove server create-admin-user` is given. */
export interface SiteAdminInput {
  readonly email: string;
  readonly username: string;
  readonly password: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * Creates an active password user who owns the site and belongs to every organization, as the
 * reference's `server create-admin-user` does. `store` is the site-admin-creation subject's: the
 * command works on the database itself, for a deployment where nobody can sign in as an
 * administrator. A deployment with no users yet counts this one as its first user.
 */
export async function createSiteAdmin(store: AuthorizedStore, input: SiteAdminInput, now: Date): Promise<UserRow> {
  checkNewUserFields(input);
  if (!EMAIL.test(input.email))
    throw new HttpProblem(400, 'Validation failed.', {
      validations: [{ field: 'email', detail: `"${input.email}" is not an email address` }],
    });
  requireStrong(input.password);
  const organizationIds = (await store.organizations.list()).map((organization) => organization.id);
  try {
    return await store.users.insertSiteAdmin(
      newUserRow(
        {
          email: input.email,
          username: input.username,
          hashed_password: await hashPassword(input.password),
          login_type: 'password',
          status: 'active',
          rbac_roles: JSON.stringify(['owner']),
        },
        now,
      ),
      organizationIds,
    );
  } catch (error) {
    if (isDuplicateUser(error)) throw new HttpProblem(409, 'A user with this username or email exists already.');
    throw error;
  }
}

/**
 * Replaces a password user's password and ends their sessions, as `cove reset-password` does on
 * the database itself. `store` is the command-line password reset subject's.
 */
export async function setUserPassword(store: AuthorizedStore, username: string, password: string): Promise<UserRow> {
  let user: UserRow;
  try {
    user = await store.users.get(username);
  } catch (error) {
    if (error instanceof NotFoundError) throw new HttpProblem(404, `There is no user "${username}".`);
    throw error;
  }
  if (user.login_type !== 'password') {
    throw new HttpProblem(400, `User "${user.username}" signs in with ${user.login_type}, not a password.`, {
      detail: 'A password would never be asked for; change the login type first.',
    });
  }
  requireStrong(password);
  const updated = await store.users.update(user.id, 'personal', { hashed_password: await hashPassword(password) });
  // A new password ends every session, as a reset by passcode does.
  await store.tokens.deleteAll(user.id);
  return updated;
}

function requireStrong(password: string): void {
  const weakness = passwordWeakness(password);
  if (weakness) throw new HttpProblem(400, 'Password not strong enough!', { validations: [{ field: 'password', detail: weakness }] });
}
