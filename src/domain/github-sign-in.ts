import { HttpProblem } from '../lib/errors.js';
import type { DeploymentValues } from './deployment-options.js';
import type { ExternalIdentity } from './external-sign-in.js';
import type { PendingSignIn } from './sign-in-state.js';

/** The part of the settings GitHub sign-in reads. */
type GithubSettings = Pick<
  DeploymentValues,
  'githubClientId' | 'githubClientSecret' | 'githubAllowedOrgs' | 'githubAllowedTeams' | 'githubAllowEveryone' | 'githubEnterpriseBaseUrl'
>;

/** Scopes that let the daemon read the user, their verified emails and their organization and team memberships. */
const SCOPES = 'read:user read:org user:email';

/** How long one call to GitHub may take. */
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * GitHub sign-in with OAuth2: the authorization code flow (with PKCE, which GitHub accepts and
 * GitHub Enterprise ignores where it predates it), then the REST API for the user, their primary
 * verified email, and their memberships in the allowed organizations and teams.
 * github.com uses github.com for the web flow and api.github.com for the API; a GitHub Enterprise
 * Server base URL serves the web flow at its root and the API under /api/v3.
 */
export class GithubSignIn {
  readonly #settings: GithubSettings;
  readonly #redirectUri: string;
  readonly #webBase: string;
  readonly #apiBase: string;

  constructor(settings: GithubSettings, redirectUri: string) {
    this.#settings = settings;
    this.#redirectUri = redirectUri;
    const enterprise = settings.githubEnterpriseBaseUrl.replace(/\/+$/, '');
    this.#webBase = enterprise || 'https://github.com';
    this.#apiBase = enterprise ? `${enterprise}/api/v3` : 'https://api.github.com';
  }

  /** Where to send the browser to sign in at GitHub. */
  async authorizationUrl(pending: PendingSignIn): Promise<URL> {
    const url = new URL(`${this.#webBase}/login/oauth/authorize`);
    url.searchParams.set('client_id', this.#settings.githubClientId);
    url.searchParams.set('redirect_uri', this.#redirectUri);
    url.searchParams.set('scope', SCOPES);
    url.searchParams.set('state', pending.state);
    url.searchParams.set('code_challenge', await codeChallenge(pending.codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return url;
  }

  /** Exchanges the code for a token, reads who signed in and checks they may. */
  async identity(callbackQuery: URLSearchParams, pending: PendingSignIn): Promise<ExternalIdentity> {
    const providerError = callbackQuery.get('error');
    if (providerError) {
      const description = callbackQuery.get('error_description');
      throw new HttpProblem(400, 'GitHub refused the sign-in.', {
        detail: description ? `${providerError}: ${description}` : providerError,
      });
    }
    const code = callbackQuery.get('code');
    if (!code) throw new HttpProblem(400, 'GitHub sent the browser back without a code.', { detail: 'Start the sign-in again.' });
    const accessToken = await this.#exchange(code, pending.codeVerifier);
    const user = await this.#api<{ id?: unknown; login?: unknown; name?: unknown; avatar_url?: unknown }>(accessToken, '/user');
    if (typeof user.id !== 'number' || typeof user.login !== 'string') {
      throw new HttpProblem(502, 'GitHub answered with an unexpected user.', { detail: 'GET /user has no numeric id or login.' });
    }
    await this.#checkMembership(accessToken, user.login);
    const emails = await this.#api<readonly { email?: unknown; primary?: unknown; verified?: unknown }[]>(accessToken, '/user/emails');
    const primary = Array.isArray(emails) ? emails.find((entry) => entry.primary === true) : undefined;
    if (!primary || typeof primary.email !== 'string') {
      throw new HttpProblem(400, 'Your GitHub account has no primary email address.', { detail: 'Add one on GitHub and sign in again.' });
    }
    if (primary.verified !== true) throw new HttpProblem(403, 'Your primary email must be verified on GitHub!');
    return {
      loginType: 'github',
      linkedId: String(user.id),
      email: primary.email,
      username: user.login,
      name: typeof user.name === 'string' ? user.name : '',
      avatarUrl: typeof user.avatar_url === 'string' ? user.avatar_url : '',
    };
  }

  async #exchange(code: string, codeVerifier: string): Promise<string> {
    const settings = this.#settings;
    const response = await this.#fetch(`${this.#webBase}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: settings.githubClientId,
        client_secret: settings.githubClientSecret,
        code,
        redirect_uri: this.#redirectUri,
        code_verifier: codeVerifier,
      }).toString(),
    });
    // GitHub answers a refused exchange with 200 and an `error` field.
    const body = (await readJson(response)) as { access_token?: unknown; error?: unknown; error_description?: unknown };
    if (!response.ok || typeof body.access_token !== 'string' || body.access_token === '') {
      const reason = typeof body.error === 'string' ? body.error : `HTTP ${response.status}`;
      const description = typeof body.error_description === 'string' ? `: ${body.error_description}` : '';
      throw new HttpProblem(401, 'GitHub did not accept the sign-in code.', { detail: `${reason}${description}` });
    }
    return body.access_token;
  }

  /** Allowed organizations, then allowed teams within them; nothing to check when everyone is allowed. */
  async #checkMembership(accessToken: string, login: string): Promise<void> {
    const settings = this.#settings;
    if (settings.githubAllowEveryone) return;
    const memberships = await this.#api<readonly { state?: unknown; organization?: { login?: unknown } }[]>(
      accessToken,
      '/user/memberships/orgs?state=active&per_page=100',
    );
    const userOrgs = new Set(
      (Array.isArray(memberships) ? memberships : [])
        .filter((membership) => membership.state === 'active' && typeof membership.organization?.login === 'string')
        .map((membership) => String(membership.organization?.login).toLowerCase()),
    );
    const allowedOrgs = settings.githubAllowedOrgs.filter((org) => userOrgs.has(org.toLowerCase()));
    if (allowedOrgs.length === 0) {
      throw new HttpProblem(401, "You aren't a member of the authorized Github organizations!", {
        detail: `Allowed organizations: ${settings.githubAllowedOrgs.join(', ')}.`,
      });
    }
    if (settings.githubAllowedTeams.length === 0) return;
    for (const team of settings.githubAllowedTeams) {
      const [org = '', slug = ''] = team.split('/');
      if (!userOrgs.has(org.toLowerCase())) continue;
      const path = `/orgs/${encodeURIComponent(org)}/teams/${encodeURIComponent(slug)}/memberships/${encodeURIComponent(login)}`;
      const membership = await this.#api<{ state?: unknown } | undefined>(accessToken, path, { notFound: undefined });
      if (membership?.state === 'active') return;
    }
    throw new HttpProblem(401, `You aren't a member of an authorized team in the ${allowedOrgs.join(', ')} Github organization(s)!`, {
      detail: `Allowed teams: ${settings.githubAllowedTeams.join(', ')}.`,
    });
  }

  async #api<T>(accessToken: string, path: string, options: { readonly notFound?: T } = {}): Promise<T> {
    const response = await this.#fetch(`${this.#apiBase}${path}`, {
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${accessToken}`,
        'x-github-api-version': '2022-11-28',
      },
    });
    if (response.status === 404 && 'notFound' in options) {
      await response.body?.cancel();
      return options.notFound as T;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new HttpProblem(502, 'GitHub refused a request the sign-in needs.', { detail: `GET ${path}: HTTP ${response.status}` });
    }
    return (await readJson(response)) as T;
  }

  async #fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch (error) {
      throw new HttpProblem(502, 'GitHub could not be reached.', {
        detail: `${new URL(url).origin}: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    throw new HttpProblem(502, 'GitHub answered with something that is not JSON.', { detail: `${response.url}: HTTP ${response.status}` });
  }
}

async function codeChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return Buffer.from(digest).toString('base64url');
}
