import type { ExternalAuthProvider, GitCredentials } from './external-auth-provider.js';

/**
 * The username and password git sends to the provider's HTTP server, as each server expects a
 * token: GitLab as the password of the user `oauth2`, Bitbucket as that of `x-token-auth`, and
 * the others (GitHub, Gitea, Azure DevOps, generic) as the username with an empty password.
 */
export function gitCredentials(provider: Pick<ExternalAuthProvider, 'type'>, accessToken: string): GitCredentials {
  switch (provider.type) {
    case 'gitlab':
      return { username: 'oauth2', password: accessToken };
    case 'bitbucket-cloud':
    case 'bitbucket-server':
    case 'bitbucket':
      return { username: 'x-token-auth', password: accessToken };
    default:
      return { username: accessToken, password: '' };
  }
}
