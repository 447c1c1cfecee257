/**
 * One provider as configured (environment or YAML), before its type's defaults are filled in.
 * Empty strings and lists mean "not given".
 */
export interface ExternalAuthEntry {
  id: string;
  type: string;
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  validateUrl: string;
  revokeUrl: string;
  deviceFlow: boolean;
  deviceCodeUrl: string;
  noRefresh: boolean;
  scopes: string[];
  extraTokenKeys: string[];
  regex: string;
  displayName: string;
  displayIcon: string;
  appInstallUrl: string;
  appInstallationsUrl: string;
  /** Undefined: the type's default; an empty list turns PKCE off. */
  codeChallengeMethodsSupported: string[] | undefined;
}

/** The fields a type can default. */
type Defaults = Partial<
  Pick<
    ExternalAuthEntry,
    | 'authUrl'
    | 'tokenUrl'
    | 'validateUrl'
    | 'revokeUrl'
    | 'deviceCodeUrl'
    | 'scopes'
    | 'extraTokenKeys'
    | 'regex'
    | 'displayName'
    | 'displayIcon'
    | 'appInstallUrl'
    | 'appInstallationsUrl'
    | 'codeChallengeMethodsSupported'
  >
>;

/** The types with defaults of their own; any other type is a generic OAuth2 provider. */
export const KNOWN_TYPES = [
  'github',
  'gitlab',
  'bitbucket-cloud',
  'bitbucket-server',
  'azure-devops',
  'azure-devops-entra',
  'gitea',
  'jfrog',
  'slack',
] as const;

/** The icon of a provider nobody gave one (a key), as the reference shows it. */
const KEY_ICON = '/emojis/1f511.png';

/** PKCE S256, which most providers support; the others are given `none` as the reference does. */
const S256 = ['S256'];
const NO_PKCE = ['none'];

/** A regex matching https/http URLs (and, through match-provider, SSH forms) of one host. */
function hostRegex(host: string): string {
  return `^(https?://)?${host.replaceAll('.', '\\.')}(/.*)?$`;
}

function parsedUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** The defaults of `entry`'s type; some depend on the auth URL (self-hosted servers) or the client id. */
function defaultsFor(entry: ExternalAuthEntry): Defaults {
  switch (entry.type) {
    case 'github':
      return {
        authUrl: 'https://github.com/login/oauth/authorize',
        tokenUrl: 'https://github.com/login/oauth/access_token',
        validateUrl: 'https://api.github.com/user',
        // GitHub revokes by deleting the app's grant, addressed by the client id.
        revokeUrl: entry.clientId !== '' ? `https://api.github.com/applications/${entry.clientId}/grant` : '',
        deviceCodeUrl: 'https://github.com/login/device/code',
        appInstallationsUrl: 'https://api.github.com/user/installations',
        displayName: 'GitHub',
        displayIcon: '/icon/github.svg',
        regex: hostRegex('github.com'),
        // `workflow` lets a user push changes to the repository's GitHub Actions.
        scopes: ['repo', 'workflow'],
        codeChallengeMethodsSupported: S256,
      };
    case 'gitlab': {
      const auth = parsedUrl(entry.authUrl);
      const base = auth && auth.host !== 'gitlab.com' ? auth.origin : 'https://gitlab.com';
      return {
        authUrl: `${base}/oauth/authorize`,
        tokenUrl: `${base}/oauth/token`,
        validateUrl: `${base}/oauth/token/info`,
        revokeUrl: `${base}/oauth/revoke`,
        displayName: 'GitLab',
        displayIcon: '/icon/gitlab.svg',
        regex: hostRegex(new URL(base).host),
        scopes: ['write_repository'],
        codeChallengeMethodsSupported: S256,
      };
    }
    case 'bitbucket-cloud':
      return {
        authUrl: 'https://bitbucket.org/site/oauth2/authorize',
        tokenUrl: 'https://bitbucket.org/site/oauth2/access_token',
        validateUrl: 'https://api.bitbucket.org/2.0/user',
        displayName: 'BitBucket',
        displayIcon: '/icon/bitbucket.svg',
        regex: hostRegex('bitbucket.org'),
        scopes: ['account', 'repository:write'],
        codeChallengeMethodsSupported: NO_PKCE,
      };
    case 'bitbucket-server': {
      const auth = parsedUrl(entry.authUrl);
      return {
        displayName: 'Bitbucket Server',
        displayIcon: '/icon/bitbucket.svg',
        scopes: ['PUBLIC_REPOS', 'REPO_READ', 'REPO_WRITE'],
        codeChallengeMethodsSupported: NO_PKCE,
        // A Bitbucket server is known by its auth URL; everything else is on the same host.
        ...(auth
          ? {
              regex: hostRegex(auth.host),
              tokenUrl: `${auth.origin}/rest/oauth2/latest/token`,
              // Answers 200 when signed in and 401 otherwise: the count of pull requests in the inbox.
              validateUrl: `${auth.origin}/rest/api/latest/inbox/pull-requests/count`,
            }
          : {}),
      };
    }
    case 'azure-devops':
      return {
        authUrl: 'https://app.vssps.visualstudio.com/oauth2/authorize',
        tokenUrl: 'https://app.vssps.visualstudio.com/oauth2/token',
        displayName: 'Azure DevOps',
        displayIcon: '/icon/azure-devops.svg',
        regex: hostRegex('dev.azure.com'),
        scopes: ['vso.code_write'],
        codeChallengeMethodsSupported: NO_PKCE,
      };
    case 'azure-devops-entra': {
      // The tenant is the first segment of the auth URL, /{tenant}/oauth2/authorize.
      const parts = parsedUrl(entry.authUrl)?.pathname.split('/') ?? [];
      const origin = parsedUrl(entry.authUrl)?.origin;
      return {
        displayName: 'Azure DevOps (Entra)',
        displayIcon: '/icon/azure-devops.svg',
        regex: hostRegex('dev.azure.com'),
        codeChallengeMethodsSupported: NO_PKCE,
        ...(origin && parts[2] === 'oauth2' && parts[3] === 'authorize' ? { tokenUrl: `${origin}/${parts[1]}/oauth2/token` } : {}),
      };
    }
    case 'gitea': {
      const auth = parsedUrl(entry.authUrl || 'https://gitea.com/login/oauth/authorize');
      return {
        authUrl: 'https://gitea.com/login/oauth/authorize',
        displayName: 'Gitea',
        displayIcon: '/icon/gitea.svg',
        scopes: ['read:repository', 'write:repository', 'read:user'],
        codeChallengeMethodsSupported: S256,
        ...(auth
          ? {
              regex: hostRegex(auth.host),
              tokenUrl: `${auth.origin}/login/oauth/access_token`,
              validateUrl: `${auth.origin}/login/oauth/userinfo`,
            }
          : {}),
      };
    }
    case 'jfrog': {
      const auth = parsedUrl(entry.authUrl);
      // No regex: an Artifactory serves git, containers and packages under any host name.
      return {
        displayName: 'JFrog Artifactory',
        displayIcon: '/icon/jfrog.svg',
        scopes: ['applied-permissions/user'],
        codeChallengeMethodsSupported: NO_PKCE,
        ...(auth && entry.clientId !== ''
          ? {
              tokenUrl: `${auth.origin}/access/api/v1/integrations/${entry.clientId}/token`,
              validateUrl: `${auth.origin}/access/api/v1/system/ping`,
            }
          : {}),
      };
    }
    case 'slack':
      return {
        authUrl: 'https://slack.com/oauth/v2/authorize',
        tokenUrl: 'https://slack.com/api/oauth.v2.access',
        revokeUrl: 'https://slack.com/api/auth.revoke',
        displayName: 'Slack',
        displayIcon: '/icon/slack.svg',
        // The user's own token is in `authed_user` beside the bot token.
        extraTokenKeys: ['authed_user'],
        codeChallengeMethodsSupported: NO_PKCE,
      };
    default:
      return {};
  }
}

/**
 * `entry` with its type's defaults filled in where it gave nothing, then the defaults of every
 * provider: the id is the type, the display name the type, the icon a key, PKCE S256.
 * The legacy type `bitbucket` is `bitbucket-cloud`.
 */
export function withProviderDefaults(given: ExternalAuthEntry): ExternalAuthEntry {
  const legacyBitbucket = given.type === 'bitbucket';
  const entry: ExternalAuthEntry = { ...given, type: legacyBitbucket ? 'bitbucket-cloud' : given.type };
  const defaults = defaultsFor(entry);
  const text = (value: string, fallback: string | undefined): string => (value !== '' ? value : (fallback ?? ''));
  const list = (value: string[], fallback: string[] | undefined): string[] => (value.length > 0 ? value : [...(fallback ?? [])]);
  // The id of a legacy `bitbucket` entry stays `bitbucket`, as links made under it are kept under it.
  const id = entry.id !== '' ? entry.id : given.type;
  return {
    ...entry,
    id,
    authUrl: text(entry.authUrl, defaults.authUrl),
    tokenUrl: text(entry.tokenUrl, defaults.tokenUrl),
    validateUrl: text(entry.validateUrl, defaults.validateUrl),
    revokeUrl: text(entry.revokeUrl, defaults.revokeUrl),
    deviceCodeUrl: text(entry.deviceCodeUrl, defaults.deviceCodeUrl),
    appInstallUrl: text(entry.appInstallUrl, defaults.appInstallUrl),
    appInstallationsUrl: text(entry.appInstallationsUrl, defaults.appInstallationsUrl),
    regex: text(entry.regex, defaults.regex),
    scopes: list(entry.scopes, defaults.scopes),
    extraTokenKeys: list(entry.extraTokenKeys, defaults.extraTokenKeys),
    displayName: text(text(entry.displayName, defaults.displayName), entry.type),
    displayIcon: text(text(entry.displayIcon, defaults.displayIcon), KEY_ICON),
    codeChallengeMethodsSupported: [...(entry.codeChallengeMethodsSupported ?? defaults.codeChallengeMethodsSupported ?? S256)],
  };
}
