import { ConflictError, HttpProblem } from '../lib/errors.js';
import { randomAlphanumeric } from '../lib/random.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { UserRow } from '../store/rows.js';
import type { DeploymentValues } from './deployment-options.js';
import { nameProblem, realNameProblem } from './names.js';
import { newApiKey } from './sessions.js';
import type { SignInProvider } from './sign-in-state.js';
import { newUserRow, userByEmail } from './users.js';

/** Who a provider says signed in, after the provider's own rules (domains, organizations) passed. */
export interface ExternalIdentity {
  readonly loginType: SignInProvider;
  /** The provider's stable id of the account. */
  readonly linkedId: string;
  readonly email: string;
  /** Wanted username of a new account; made to fit the name rule. */
  readonly username: string;
  readonly name: string;
  readonly avatarUrl: string;
  /** Every claim the provider sent (OIDC), kept on the link and read by group and role sync. */
  readonly claims?: Readonly<Record<string, unknown>>;
}

const PROVIDER_NAMES: Readonly<Record<SignInProvider, string>> = { oidc: 'OpenID Connect', github: 'GitHub' };

/**
 * Signs in the user a provider vouched for, and returns a new session token. The account is the
 * one linked to the provider account, else the one with the same email. A new account is created
 * only when sign-ups are allowed. An account that signs in another way is refused unless this
 * sign-in completes a conversion that its owner started with their password.
 * `store` is the external sign-in subject's: nobody is signed in yet.
 */
export async function signInExternalUser(
  store: AuthorizedStore,
  deployment: { readonly values: DeploymentValues; readonly defaultOrganizationId: string },
  identity: ExternalIdentity,
  options: {
    readonly allowSignups: boolean;
    readonly convertUserId: string | undefined;
    /** Runs once the account is known and may sign in, before the session exists (group and role sync). */
    readonly afterAccount?: (user: UserRow) => Promise<void>;
  },
  request: { readonly ipAddress: string; readonly now: Date },
): Promise<{ readonly token: string; readonly user: UserRow }> {
  const provider = PROVIDER_NAMES[identity.loginType];
  refuseControlCharacters(identity);
  let registered = false;
  let user = (await store.signIn.getUserByLink(identity.loginType, identity.linkedId)) ?? (await userByEmail(store, identity.email));

  if (options.convertUserId !== undefined) {
    if (!user || user.id !== options.convertUserId) {
      throw new HttpProblem(403, `This ${provider} account is not the account being converted.`, {
        detail: `The ${provider} account's email "${identity.email}" must be the email of the account that started the conversion.`,
      });
    }
    if (!(await store.signIn.linkUser(user, identity.loginType, identity.linkedId, { fromPassword: true }))) {
      throw new HttpProblem(400, 'User account must have password based authentication.', {
        detail: 'The account was converted already; sign in with the provider instead.',
      });
    }
    user = { ...user, login_type: identity.loginType, hashed_password: '' };
  } else if (user) {
    if (user.login_type !== identity.loginType) {
      throw new HttpProblem(
        403,
        `Incorrect login type, attempting to use "${identity.loginType}" but user is of login type "${user.login_type}"`,
        {
          detail:
            user.login_type === 'password'
              ? `An account with the email "${identity.email}" signs in with a password. Sign in with it and convert the account to ${provider} sign-in (POST /users/{user}/convert-login), or ask an administrator.`
              : `An account with the email "${identity.email}" signs in another way.`,
        },
      );
    }
    await store.signIn.linkUser(user, identity.loginType, identity.linkedId, { fromPassword: false });
  } else {
    if (!options.allowSignups) {
      throw new HttpProblem(403, `Signups are not allowed for login type "${identity.loginType}".`, {
        detail: `No account has the email "${identity.email}", and this deployment does not create accounts on ${provider} sign-in. Ask an administrator to create yours.`,
      });
    }
    user = await createLinkedUser(store, deployment.defaultOrganizationId, identity, request.now);
    registered = true;
  }

  if (user.status === 'suspended') {
    throw new HttpProblem(401, 'Your account is suspended. Contact an admin to reactivate your account.');
  }
  await options.afterAccount?.(user);
  const key = newApiKey({
    userId: user.id,
    loginType: identity.loginType,
    scope: 'all',
    lifetimeMs: deployment.values.sessionDurationMs,
    tokenName: '',
    ipAddress: request.ipAddress,
    now: request.now,
  });
  // The session and its entry in one transaction: `register` when this sign-in made the account.
  // The provider's callback answers with a redirect, which the API's hook does not see (a GET).
  await store.sessions.signIn(key.row, user, { registered, statusCode: 307 });
  // Signing in wakes a dormant user.
  await store.users.recordSeen(user.id, {
    last_seen_at: request.now.toISOString(),
    ...(user.status === 'dormant' ? { status: 'active' } : {}),
  });
  return { token: key.token, user };
}

/** What a provider says of an account, named as the refusal names it. */
const IDENTITY_FIELDS: readonly (readonly [keyof Omit<ExternalIdentity, 'loginType' | 'claims'>, string])[] = [
  ['linkedId', 'account id'],
  ['email', 'email address'],
  ['username', 'username'],
  ['name', 'name'],
  ['avatarUrl', 'picture URL'],
];

/**
 * Whether text holds a control character: C0 (NUL among them), DEL, C1, or a line or paragraph
 * separator. None belongs in an email, a name, a username, an id or a URL; a NUL byte in
 * particular would be cut short or refused by the database and by programs reading the value.
 */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) return true;
  }
  return false;
}

/**
 * Refuses a sign-in whose provider sent control characters in what the account would keep,
 * before anything is looked up or stored. The value is not repeated: it is what is wrong.
 */
function refuseControlCharacters(identity: ExternalIdentity): void {
  const provider = PROVIDER_NAMES[identity.loginType];
  for (const [field, label] of IDENTITY_FIELDS) {
    if (!hasControlCharacter(identity[field])) continue;
    throw new HttpProblem(
      400,
      `Your ${provider} account's ${label} holds a control character (such as a NUL byte), so you cannot sign in with it.`,
      {
        detail: `${provider} sent a ${label} that cannot be stored. Correct it at ${provider}, or ask an administrator of the provider to, then sign in again.`,
      },
    );
  }
}

async function createLinkedUser(store: AuthorizedStore, organizationId: string, identity: ExternalIdentity, now: Date): Promise<UserRow> {
  const base = usernameFrom(identity.username || identity.email.split('@')[0] || '');
  const name = identity.name.trim().slice(0, 128);
  // A taken username gets a random suffix; a few tries are plenty.
  for (let attempt = 0; attempt < 5; attempt++) {
    const username = attempt === 0 ? base : `${base.slice(0, 32 - 7)}-${randomAlphanumeric(6).toLowerCase()}`;
    try {
      return await store.signIn.insertLinkedUser(
        newUserRow(
          {
            email: identity.email,
            username,
            name: realNameProblem(name) ? '' : name,
            avatar_url: identity.avatarUrl,
            hashed_password: '',
            login_type: identity.loginType,
            status: 'active',
          },
          now,
        ),
        [organizationId],
        identity.linkedId,
      );
    } catch (error) {
      if (error instanceof ConflictError && /username/.test(error.constraint)) continue;
      if (error instanceof ConflictError && /email/.test(error.constraint)) {
        throw new HttpProblem(409, 'User already exists.', { detail: `Another account has the email "${identity.email}".` });
      }
      throw error;
    }
  }
  throw new HttpProblem(409, 'User already exists.', { detail: `No free username was found for "${base}".` });
}

/** A username that fits the name rule, made from what a provider offers (`Jane.Doe` → `Jane-Doe`). */
export function usernameFrom(raw: string): string {
  const cleaned = raw
    .replace(/[^a-zA-Z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
    .replace(/-+$/, '');
  if (cleaned !== '' && !nameProblem(cleaned)) return cleaned;
  return `user-${randomAlphanumeric(8).toLowerCase()}`;
}
