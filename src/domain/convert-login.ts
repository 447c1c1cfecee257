import { createHmac, timingSafeEqual } from 'node:crypto';
import { HttpProblem } from '../lib/errors.js';
import { randomAlphanumeric } from '../lib/random.js';
import { userObject } from '../rbac/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { UserRow } from '../store/rows.js';
import type { DeploymentIdentity } from './bootstrap.js';
import type { DeploymentValues } from './deployment-options.js';
import { verifyPassword } from './passwords.js';

/** How long a started conversion may take to complete, as in the reference. */
export const CONVERT_LOGIN_VALIDITY_MS = 5 * 60 * 1000;

/** The cookie that carries the signed conversion state to the sign-in callback. */
export const CONVERT_LOGIN_COOKIE = 'cove_oauth_convert_jwt';

/** A started conversion: the wire answer plus the signed token for the cookie. */
export interface LoginConversion {
  readonly expires_at: string;
  readonly state_string: string;
  readonly to_type: 'github' | 'oidc';
  readonly user_id: string;
  readonly token: string;
}

/**
 * Starts moving a password user to GitHub or OIDC sign-in. The switch itself happens when the
 * user completes that provider's sign-in with the returned state; this only proves, with the
 * current password, that the account's owner asked for it.
 */
export async function startLoginConversion(
  store: AuthorizedStore,
  deployment: { readonly values: DeploymentValues; readonly identity: DeploymentIdentity },
  user: UserRow,
  input: { readonly to_type: string; readonly password: string },
  now: Date,
): Promise<LoginConversion> {
  const { values, identity } = deployment;
  const toType = checkTargetType(input.to_type, values);
  if (!store.can('update_personal', userObject(user.id))) {
    throw new HttpProblem(403, 'You are not authorized to change the login type of this user.');
  }
  // Before the password is checked: nobody below the user may test guesses of it here.
  await store.requireOutranks(user);
  if (user.login_type !== 'password') throw new HttpProblem(400, 'User account must have password based authentication.');
  if (!(await verifyPassword(input.password, user.hashed_password))) throw new HttpProblem(401, 'Incorrect email or password.');
  if (user.status === 'suspended') {
    throw new HttpProblem(401, 'Your account is suspended. Contact an admin to reactivate your account.');
  }
  const state = `convert-${randomAlphanumeric(32)}`;
  const expiresAt = new Date(now.getTime() + CONVERT_LOGIN_VALIDITY_MS);
  const token = signJwt(identity.signingKey, {
    iss: identity.deploymentId,
    aud: user.id,
    sub: state,
    to_type: toType,
    iat: Math.floor(now.getTime() / 1000),
    exp: Math.floor(expiresAt.getTime() / 1000),
  });
  return { expires_at: expiresAt.toISOString(), state_string: state, to_type: toType, user_id: user.id, token };
}

function checkTargetType(toType: string, values: DeploymentValues): 'github' | 'oidc' {
  switch (toType) {
    case 'github':
      if (!values.githubClientId || !values.githubClientSecret) {
        throw new HttpProblem(400, 'GitHub sign-in is not configured on this deployment.', {
          detail: 'An administrator must set --oauth2-github-client-id and --oauth2-github-client-secret first.',
          validations: [{ field: 'to_type', detail: 'github is not configured' }],
        });
      }
      return toType;
    case 'oidc':
      if (!values.oidcIssuerUrl || !values.oidcClientId) {
        throw new HttpProblem(400, 'OIDC sign-in is not configured on this deployment.', {
          detail: 'An administrator must set --oidc-issuer-url and --oidc-client-id first.',
          validations: [{ field: 'to_type', detail: 'oidc is not configured' }],
        });
      }
      return toType;
    case 'none':
    case 'password':
    case 'token':
      throw new HttpProblem(400, `Cannot convert to login type "${toType}".`);
    default:
      throw new HttpProblem(400, `Unknown login type "${toType}".`);
  }
}

function signJwt(key: Buffer, claims: Readonly<Record<string, unknown>>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${unsigned}.${createHmac('sha256', key).update(unsigned).digest('base64url')}`;
}

/**
 * Checks the conversion cookie a browser brings to a provider's sign-in: signed by this
 * deployment, unexpired, for this state and this provider. Returns the id of the user converting.
 */
export function verifyLoginConversion(
  identity: DeploymentIdentity,
  cookie: string | undefined,
  expected: { readonly state: string; readonly toType: 'github' | 'oidc' },
  now: Date,
): string {
  const refused = (detail: string) =>
    new HttpProblem(400, 'The login type conversion could not be verified.', {
      detail: `${detail} Start the conversion again with convert-login.`,
    });
  if (!cookie) throw refused(`The ${CONVERT_LOGIN_COOKIE} cookie is missing.`);
  const [header, payload, signature] = cookie.split('.');
  if (header === undefined || payload === undefined || signature === undefined) throw refused('The conversion token is malformed.');
  const wanted = createHmac('sha256', identity.signingKey).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
    throw refused('The conversion token is not signed by this deployment.');
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw refused('The conversion token is malformed.');
  }
  if (claims['iss'] !== identity.deploymentId) throw refused('The conversion token is for another deployment.');
  if (typeof claims['exp'] !== 'number' || claims['exp'] * 1000 <= now.getTime()) throw refused('The conversion token expired.');
  if (claims['sub'] !== expected.state) throw refused('The conversion token is for another conversion.');
  if (claims['to_type'] !== expected.toType)
    throw refused(`The conversion token converts to "${String(claims['to_type'])}", not "${expected.toType}".`);
  if (typeof claims['aud'] !== 'string') throw refused('The conversion token names no user.');
  return claims['aud'];
}
