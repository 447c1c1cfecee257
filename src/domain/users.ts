import { ConflictError, HttpProblem, NotAuthorizedError, NotFoundError } from '../lib/errors.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import { newId } from '../lib/random.js';
import type { UserRow } from '../store/rows.js';
import type { DeploymentValues } from './deployment-options.js';
import { nameProblem, realNameProblem, ruleDetail } from './names.js';
import { hashPassword, needsRehash, passwordWeakness, verifyPassword } from './passwords.js';
import { newApiKey } from './sessions.js';
import { beginSignInAttempt } from './sign-in-throttle.js';
import { parseStringArray } from '../store/json-column.js';
import { userObject } from '../rbac/index.js';

/** The body of `POST /users/first`. */
/** What a new user's row must say of them; every other column starts as any new user's does. */
export type NewUserFields = Pick<UserRow, 'email' | 'username' | 'login_type' | 'status' | 'hashed_password'> &
  Partial<Pick<UserRow, 'name' | 'avatar_url' | 'rbac_roles'>>;

/** The row of a new user created at `now`: no roles unless given, no passcode, seen at creation. */
export function newUserRow(fields: NewUserFields, now: Date): UserRow {
  const iso = now.toISOString();
  return {
    id: newId(),
    name: '',
    avatar_url: '',
    rbac_roles: '[]',
    theme_preference: '',
    quiet_hours_schedule: '',
    hashed_one_time_passcode: null,
    one_time_passcode_expires_at: null,
    deleted: 0,
    created_at: iso,
    updated_at: iso,
    last_seen_at: iso,
    ...fields,
  };
}

export interface FirstUserInput {
  readonly email: string;
  readonly username: string;
  readonly name?: string | undefined;
  readonly password: string;
}

/**
 * Creates the first user: an active password user, owner of the site and member of the default
 * organization. `store` is the first-user subject's, because nobody can sign in yet. The site
 * setting that records the first user is claimed in the same transaction, so two concurrent
 * requests cannot both win.
 */
export async function createFirstUser(
  store: AuthorizedStore,
  defaultOrganizationId: string,
  input: FirstUserInput,
  now: Date,
): Promise<{ user_id: string; organization_id: string }> {
  checkNewUserFields(input);
  const weakness = passwordWeakness(input.password);
  if (weakness) {
    throw new HttpProblem(400, 'Password not strong enough!', { validations: [{ field: 'password', detail: weakness }] });
  }
  const hashed = await hashPassword(input.password);
  const row = newUserRow(
    {
      email: input.email,
      username: input.username,
      name: (input.name ?? '').trim(),
      hashed_password: hashed,
      login_type: 'password',
      status: 'active',
      rbac_roles: JSON.stringify(['owner']),
    },
    now,
  );
  const userId = row.id;
  const created = await store.users.insertFirst(row, defaultOrganizationId);
  if (!created) throw new HttpProblem(409, 'The initial user has already been created.');
  await store.signIn.recordRegistration(row);
  return { user_id: userId, organization_id: defaultOrganizationId };
}

/** Checks the username and real name of a new user; a 400 naming each field that breaks the rules. */
export function checkNewUserFields(input: FirstUserInput): void {
  const validations = [];
  const usernameProblem = nameProblem(input.username);
  if (usernameProblem) validations.push({ field: 'username', detail: `${ruleDetail('username', input.username)}: ${usernameProblem}` });
  if (input.name !== undefined && realNameProblem(input.name.trim())) {
    validations.push({ field: 'name', detail: ruleDetail('user_real_name', input.name) });
  }
  if (validations.length > 0) throw new HttpProblem(400, 'Validation failed.', { validations });
}

/**
 * Signs in with email and password and returns a new session token. `store` is the password
 * sign-in subject's: the caller is anonymous until the password checks out. Unknown emails still
 * cost a password hash so the two failures take the same time. Each attempt is counted against
 * the email first, and past a few failures waits (429) without the password being checked.
 */
export async function loginWithPassword(
  store: AuthorizedStore,
  values: DeploymentValues,
  credentials: { readonly email: string; readonly password: string },
  request: { readonly ipAddress: string; readonly now: Date },
): Promise<string> {
  const user = await userByEmail(store, credentials.email);
  const known = user !== undefined && (await store.signIn.usedKeyFrom(user.id, request.ipAddress));
  const attempt = await beginSignInAttempt(store, 'password', credentials.email, request.now, known ? request.ipAddress : undefined);
  const matches = await verifyPassword(credentials.password, user?.hashed_password ?? '');
  if (!user || !matches) {
    await store.signIn.recordFailedSignIn(user, 401);
    throw new HttpProblem(401, 'Incorrect email or password.');
  }
  await attempt.succeeded();
  // Owners keep a way in when password sign-in is off, so a broken identity provider cannot lock
  // the deployment's administrators out.
  if (values.disablePasswordAuth && !parseStringArray(user.rbac_roles).includes('owner')) {
    throw new HttpProblem(403, 'Password authentication is disabled.', {
      detail: 'Only owners may sign in with a password on this deployment. Sign in with the identity provider instead.',
    });
  }
  if (user.login_type !== 'password') {
    throw new HttpProblem(403, `Incorrect login type, attempting to use "password" but user is of login type "${user.login_type}"`);
  }
  if (user.status === 'suspended') {
    await store.signIn.recordFailedSignIn(user, 401);
    throw new HttpProblem(401, `Your account is ${user.status}. Contact an admin to reactivate your account.`);
  }
  const key = newApiKey({
    userId: user.id,
    loginType: 'password',
    scope: 'all',
    lifetimeMs: values.sessionDurationMs,
    tokenName: '',
    ipAddress: request.ipAddress,
    now: request.now,
  });
  // The session and its `login` entry, in one transaction.
  await store.sessions.signIn(key.row, user);
  // Signing in wakes a dormant user.
  await store.users.recordSeen(user.id, {
    last_seen_at: request.now.toISOString(),
    ...(user.status === 'dormant' ? { status: 'active' } : {}),
  });
  // The one moment the password is at hand: a hash made at an older, cheaper cost is replaced.
  if (needsRehash(user.hashed_password)) await store.signIn.rehashPassword(user, await hashPassword(credentials.password));
  return key.token;
}

/** The live user with this email, or undefined. */
export async function userByEmail(store: AuthorizedStore, email: string): Promise<UserRow | undefined> {
  try {
    return await store.users.getByEmail(email);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** True for errors that mean the username or email is already taken. */
export function isDuplicateUser(error: unknown): boolean {
  return error instanceof ConflictError && /users_(username|email)/.test(error.constraint);
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** The body of `POST /users`. */
export interface CreateUserInput {
  readonly email: string;
  readonly username: string;
  readonly name?: string | undefined;
  readonly password?: string | undefined;
  readonly login_type?: string | undefined;
  readonly user_status?: 'active' | 'dormant' | 'suspended' | undefined;
  readonly organization_ids?: readonly string[] | undefined;
}

/**
 * Creates a user for an administrator, with the reference's rules in order: login type and
 * password, organizations, uniqueness, strength. New users are dormant unless told otherwise.
 */
export async function createUser(
  store: AuthorizedStore,
  values: DeploymentValues,
  defaultOrganizationId: string,
  input: CreateUserInput,
  now: Date,
): Promise<UserRow> {
  const loginType = input.login_type ?? 'password';
  if (loginType !== 'password' && input.password) {
    throw new HttpProblem(400, `Password cannot be set for non-password ("${loginType}") authentication.`);
  }
  if (loginType === 'password' && values.disablePasswordAuth) {
    throw new HttpProblem(403, 'Password based authentication is disabled! Unable to provision new users with password authentication.');
  }
  const organizationIds = [...new Set((input.organization_ids ?? []).map((id) => (id === NIL_UUID ? defaultOrganizationId : id)))];
  if (organizationIds.length === 0) {
    throw new HttpProblem(
      400,
      'No organization specified to place the user as a member of. It is required to specify at least one organization id to place the user in.',
      {
        detail: "required at least 1 value for the array 'organization_ids'",
        validations: [{ field: 'organization_ids', detail: 'Missing values, this cannot be empty' }],
      },
    );
  }
  checkNewUserFields({ email: input.email, username: input.username, name: input.name, password: input.password ?? '' });
  for (const id of organizationIds) {
    try {
      await store.organizations.get(id);
    } catch {
      throw new HttpProblem(404, `Organization does not exist with the provided id "${id}".`);
    }
  }
  let hashed = '';
  switch (loginType) {
    case 'none':
      break;
    case 'password': {
      const weakness = passwordWeakness(input.password ?? '');
      if (weakness) throw new HttpProblem(400, 'Password not strong enough!', { validations: [{ field: 'password', detail: weakness }] });
      // A hash costs a third of a second of CPU: none for a caller who may not create users,
      // whom the insert below refuses as it would anyway.
      if (store.can('create', userObject(newId()))) hashed = await hashPassword(input.password ?? '');
      break;
    }
    case 'oidc':
      if (!values.oidcIssuerUrl) throw new HttpProblem(400, 'You must configure OIDC before creating OIDC users.');
      break;
    case 'github':
      if (!values.githubClientId) throw new HttpProblem(400, 'You must configure GitHub sign-in before creating GitHub users.');
      break;
    default:
      throw new HttpProblem(400, `Unsupported login type "${loginType}" for manually creating new users.`);
  }
  try {
    return await store.users.insert(
      newUserRow(
        {
          email: input.email,
          username: input.username,
          name: (input.name ?? '').trim(),
          hashed_password: hashed,
          login_type: loginType,
          status: input.user_status ?? 'dormant',
        },
        now,
      ),
      organizationIds,
    );
  } catch (error) {
    if (isDuplicateUser(error)) throw new HttpProblem(409, 'User already exists.');
    if (error instanceof NotAuthorizedError) throw new HttpProblem(403, 'You are not authorized to create users.');
    throw error;
  }
}
