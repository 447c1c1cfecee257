import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { singleExecutablePath } from '../lib/single-executable.js';
import { formatDuration, msToNs, parseDuration } from '../lib/duration.js';

/**
 * Every server setting, declared once. `cove serve --help`, the `--config` YAML file, the
 * environment and `GET /deployment/config` all read this list, so a setting cannot exist in one
 * place and be missing from another.
 */

/** Where a resolved value came from, highest precedence first. */
export type ValueSource = 'flag' | 'env' | 'yaml' | 'default';

/** A section of settings, as `--help` and the YAML file group them. */
export interface OptionGroup {
  readonly name: string;
  readonly yaml: string;
  readonly description: string;
}

type Kind = 'string' | 'url' | 'bool' | 'int' | 'duration' | 'string-array';

/** The resolved settings of one daemon. Durations are milliseconds. */
export interface DeploymentValues {
  readonly httpAddress: string;
  readonly accessUrl: string;
  readonly wildcardAccessUrl: string;
  readonly relayUrl: string;
  readonly dataDir: string;
  readonly postgresUrl: string;
  readonly provisionerDaemons: number;
  readonly releaseDir: string;
  readonly rateLimitApi: number;
  readonly rateLimitDisableAll: boolean;
  readonly sessionDurationMs: number;
  readonly defaultTokenLifetimeMs: number;
  readonly maxTokenLifetimeMs: number;
  readonly maxAdminTokenLifetimeMs: number;
  readonly disableSessionExpiryRefresh: boolean;
  readonly disablePasswordAuth: boolean;
  readonly disablePathApps: boolean;
  readonly dangerousAllowPathAppSharing: boolean;
  readonly dangerousAllowPathAppSiteOwnerAccess: boolean;
  readonly httpHeaderTimeoutMs: number;
  readonly httpBodyTimeoutMs: number;
  readonly userDormancyThresholdMs: number;
  readonly githubClientId: string;
  readonly githubClientSecret: string;
  readonly githubAllowedOrgs: readonly string[];
  readonly githubAllowedTeams: readonly string[];
  readonly githubAllowSignups: boolean;
  readonly githubAllowEveryone: boolean;
  readonly githubEnterpriseBaseUrl: string;
  readonly oidcIssuerUrl: string;
  readonly oidcClientId: string;
  readonly oidcClientSecret: string;
  readonly oidcEmailDomain: readonly string[];
  readonly oidcAllowSignups: boolean;
  readonly oidcIgnoreEmailVerified: boolean;
  readonly oidcUsernameField: string;
  readonly oidcNameField: string;
  readonly oidcEmailField: string;
  readonly oidcScopes: readonly string[];
  readonly oidcSignInText: string;
  readonly oidcIconUrl: string;
  readonly emailSmtpHost: string;
  readonly emailSmtpFrom: string;
  readonly emailSmtpUsername: string;
  readonly emailSmtpPassword: string;
  readonly emailSmtpForceTls: boolean;
  readonly disableOwnerWorkspaceExec: boolean;
  readonly allowWorkspaceRenames: boolean;
  readonly experiments: readonly string[];
  readonly updateCheck: boolean;
  readonly updateCheckUrl: string;
  readonly sshHostnamePrefix: string;
  readonly sshConfigOptions: readonly string[];
  readonly licensePublicKeys: readonly string[];
  readonly awsInstanceIdentityCerts: string;
  readonly azureInstanceIdentityRoots: string;
  readonly googleInstanceIdentityCerts: string;
  readonly swaggerEnable: boolean;
  readonly prometheusEnable: boolean;
  readonly prometheusAddress: string;
  readonly healthCheckRefreshMs: number;
  readonly healthCheckThresholdDatabaseMs: number;
  readonly verbose: boolean;
  readonly logJson: boolean;
  readonly configFile: string;
}

/** One setting: its names in every source, its type, default and documentation. */
export interface OptionDefinition {
  readonly key: keyof DeploymentValues;
  readonly name: string;
  readonly description: string;
  readonly flag: string;
  readonly flagShorthand?: string;
  readonly env: string;
  /** Key inside the group's YAML section; empty for settings that cannot come from YAML. */
  readonly yaml: string;
  readonly group: OptionGroup;
  /** Path of the setting inside the `config` object of `GET /deployment/config`. */
  readonly configPath: readonly string[];
  readonly kind: Kind;
  readonly default: string;
  readonly hidden?: boolean;
  /** Redacted wherever the value is shown. */
  readonly secret?: boolean;
  readonly annotations?: Readonly<Record<string, string>>;
}

const networking: OptionGroup = { name: 'Networking', yaml: 'networking', description: 'How the daemon is reached.' };
const database: OptionGroup = { name: 'Database', yaml: 'database', description: 'Where the daemon keeps its state.' };
const provisioning: OptionGroup = { name: 'Provisioning', yaml: 'provisioning', description: 'Provisioner daemons built into the server.' };
const sessions: OptionGroup = { name: 'Sessions', yaml: 'sessions', description: 'Lifetimes of sessions and API tokens.' };
const rateLimiting: OptionGroup = { name: 'Rate Limiting', yaml: 'rate_limit', description: 'Per-user and per-IP request limits.' };
const security: OptionGroup = { name: 'Security', yaml: 'security', description: 'Sign-in methods and privileged access.' };
const oauth: OptionGroup = { name: 'OAuth2 and OIDC', yaml: 'oauth2', description: 'External sign-in providers.' };
const email: OptionGroup = { name: 'Email', yaml: 'email', description: 'How the daemon sends mail, such as one-time passcodes.' };
const licensing: OptionGroup = { name: 'Licenses', yaml: 'licenses', description: 'Who may issue licenses to this deployment.' };
const ssh: OptionGroup = { name: 'SSH', yaml: 'ssh', description: 'What `cove config-ssh` writes for clients.' };
const instanceIdentity: OptionGroup = {
  name: 'Instance Identity',
  yaml: 'instance_identity',
  description: 'Certificates trusted when workspace agents on cloud machines sign in with their instance identity.',
};
const introspection: OptionGroup = { name: 'Introspection', yaml: 'introspection', description: 'Logs and API documentation.' };
const prometheus: OptionGroup = {
  name: 'Prometheus',
  yaml: 'prometheus',
  description: 'Metrics for Prometheus to scrape, on a listener of their own.',
};
const healthCheck: OptionGroup = { name: 'Health Check', yaml: 'healthcheck', description: 'The health report of /debug/health.' };
const general: OptionGroup = { name: 'General', yaml: 'general', description: 'Everything else.' };

/** The whole list, in `--help` order. */
export const OPTION_DEFINITIONS: readonly OptionDefinition[] = [
  {
    key: 'httpAddress',
    name: 'HTTP Address',
    flag: 'http-address',
    env: 'COVE_HTTP_ADDRESS',
    yaml: 'http_address',
    group: networking,
    configPath: ['http_address'],
    kind: 'string',
    default: '127.0.0.1:3000',
    description: 'Address and port to listen on for HTTP; use port 0 for a random free port.',
  },
  {
    key: 'httpHeaderTimeoutMs',
    name: 'HTTP Header Timeout',
    flag: 'http-header-timeout',
    env: 'COVE_HTTP_HEADER_TIMEOUT',
    yaml: 'http_header_timeout',
    group: networking,
    configPath: ['http_header_timeout'],
    kind: 'duration',
    default: '30s',
    description: "How long a client may take to send a request's headers before its connection is closed.",
  },
  {
    key: 'httpBodyTimeoutMs',
    name: 'HTTP Body Timeout',
    flag: 'http-body-timeout',
    env: 'COVE_HTTP_BODY_TIMEOUT',
    yaml: 'http_body_timeout',
    group: networking,
    configPath: ['http_body_timeout'],
    kind: 'duration',
    default: '30s',
    description:
      "How long a client may take to send a request's body, once its headers are in, before it is answered 408 and its connection closed. Uploads must fit in it: at 30s, a 100 MiB template needs about 3.5 MB/s, so raise it for large templates on slow links. Answers, WebSockets, streams and requests passed on to workspace apps are not limited by it.",
  },
  {
    key: 'accessUrl',
    name: 'Access URL',
    flag: 'access-url',
    env: 'COVE_ACCESS_URL',
    yaml: 'access_url',
    group: networking,
    configPath: ['access_url'],
    kind: 'url',
    default: '',
    description: 'The URL that users and workspace agents use to reach this daemon. Defaults to http:// plus the HTTP address.',
  },
  {
    key: 'relayUrl',
    name: 'Relay URL',
    flag: 'relay-url',
    env: 'COVE_RELAY_URL',
    yaml: 'relay_url',
    group: networking,
    configPath: ['relay_url'],
    kind: 'url',
    default: '',
    description:
      'The URL other replicas reach this one at, to relay streams to the agents connected here. Defaults to http:// plus the address it listens on.',
  },
  {
    key: 'wildcardAccessUrl',
    name: 'Wildcard Access URL',
    flag: 'wildcard-access-url',
    env: 'COVE_WILDCARD_ACCESS_URL',
    yaml: 'wildcard_access_url',
    group: networking,
    configPath: ['wildcard_access_url'],
    kind: 'string',
    default: '',
    description: 'Host pattern such as *.cove.example.com under which subdomain apps are served.',
  },
  {
    key: 'dataDir',
    name: 'Data Directory',
    flag: 'data-dir',
    env: 'COVE_DATA_DIR',
    yaml: 'data_dir',
    group: database,
    configPath: ['data_dir'],
    kind: 'string',
    default: defaultDataDir(),
    description: 'Directory that holds the embedded database and other state.',
  },
  {
    key: 'postgresUrl',
    name: 'PostgreSQL Connection URL',
    flag: 'postgres-url',
    env: 'COVE_PG_CONNECTION_URL',
    yaml: 'postgres_url',
    group: database,
    configPath: ['pg_connection_url'],
    kind: 'string',
    default: '',
    secret: true,
    description: 'URL of a PostgreSQL database. When empty, the embedded SQLite database in the data directory is used.',
  },
  {
    key: 'provisionerDaemons',
    name: 'Provisioner Daemons',
    flag: 'provisioner-daemons',
    env: 'COVE_PROVISIONER_DAEMONS',
    yaml: 'daemons',
    group: provisioning,
    configPath: ['provisioner', 'daemons'],
    kind: 'int',
    default: '3',
    description: 'Number of provisioner daemons to run inside the server.',
  },
  {
    key: 'releaseDir',
    name: 'Release Directory',
    flag: 'release-dir',
    env: 'COVE_RELEASE_DIR',
    yaml: 'release_dir',
    group: provisioning,
    configPath: ['provisioner', 'release_dir'],
    kind: 'string',
    default: defaultReleaseDir(),
    description:
      'Directory of the single executables (cove-linux-x64, cove-linux-arm64) that GET /bin/cove-linux-amd64 and /bin/cove-linux-arm64 serve, so templates on other machines can fetch the agent. Defaults to the directory of the running single executable, or dist/ of this checkout.',
  },
  {
    key: 'sessionDurationMs',
    name: 'Session Duration',
    flag: 'session-duration',
    env: 'COVE_SESSION_DURATION',
    yaml: 'default_duration',
    group: sessions,
    configPath: ['session_lifetime', 'default_duration'],
    kind: 'duration',
    default: '24h',
    description: 'Lifetime of a session created by signing in with a password.',
  },
  {
    key: 'defaultTokenLifetimeMs',
    name: 'Default Token Lifetime',
    flag: 'default-token-lifetime',
    env: 'COVE_DEFAULT_TOKEN_LIFETIME',
    yaml: 'default_token_lifetime',
    group: sessions,
    configPath: ['session_lifetime', 'default_token_lifetime'],
    kind: 'duration',
    default: '168h',
    description: 'Lifetime of API tokens created without an explicit lifetime.',
  },
  {
    key: 'maxTokenLifetimeMs',
    name: 'Maximum Token Lifetime',
    flag: 'max-token-lifetime',
    env: 'COVE_MAX_TOKEN_LIFETIME',
    yaml: 'max_token_lifetime',
    group: sessions,
    configPath: ['session_lifetime', 'max_token_lifetime'],
    kind: 'duration',
    default: '876600h',
    description: 'Longest lifetime a user may request for an API token.',
  },
  {
    key: 'maxAdminTokenLifetimeMs',
    name: 'Maximum Admin Token Lifetime',
    flag: 'max-admin-token-lifetime',
    env: 'COVE_MAX_ADMIN_TOKEN_LIFETIME',
    yaml: 'max_admin_token_lifetime',
    group: sessions,
    configPath: ['session_lifetime', 'max_admin_token_lifetime'],
    kind: 'duration',
    default: '168h',
    description: 'Longest lifetime an owner may request for an API token.',
  },
  {
    key: 'disableSessionExpiryRefresh',
    name: 'Disable Session Expiry Refresh',
    flag: 'disable-session-expiry-refresh',
    env: 'COVE_DISABLE_SESSION_EXPIRY_REFRESH',
    yaml: 'disable_expiry_refresh',
    group: sessions,
    configPath: ['session_lifetime', 'disable_expiry_refresh'],
    kind: 'bool',
    default: 'false',
    description: 'Do not extend a session or token while it is in use.',
  },
  {
    key: 'rateLimitApi',
    name: 'API Rate Limit',
    flag: 'rate-limit-api',
    env: 'COVE_RATE_LIMIT_API',
    yaml: 'api',
    group: rateLimiting,
    configPath: ['rate_limit', 'api'],
    kind: 'int',
    default: '512',
    description: 'Requests per minute each user (or IP address, when anonymous) may make to one API path; 0 or less disables the limit.',
  },
  {
    key: 'rateLimitDisableAll',
    name: 'Disable All Rate Limits',
    flag: 'dangerous-disable-rate-limits',
    env: 'COVE_DANGEROUS_DISABLE_RATE_LIMITS',
    yaml: 'disable_all',
    group: rateLimiting,
    configPath: ['rate_limit', 'disable_all'],
    kind: 'bool',
    default: 'false',
    hidden: true,
    description: 'Disables every rate limit, including those on sign-in. Only for load tests.',
  },
  {
    key: 'disablePasswordAuth',
    name: 'Disable Password Authentication',
    flag: 'disable-password-auth',
    env: 'COVE_DISABLE_PASSWORD_AUTH',
    yaml: 'disable_password_auth',
    group: security,
    configPath: ['disable_password_auth'],
    kind: 'bool',
    default: 'false',
    description: 'Refuse password sign-in and password users (the first user can still be created).',
  },
  {
    key: 'disablePathApps',
    name: 'Disable Path Apps',
    flag: 'disable-path-apps',
    env: 'COVE_DISABLE_PATH_APPS',
    yaml: 'disable_path_apps',
    group: security,
    configPath: ['disable_path_apps'],
    kind: 'bool',
    default: 'false',
    description:
      "Refuse path-based apps (/@owner/workspace/apps/...): they share the deployment's origin, so an app's pages could act with its users' sessions. Subdomain apps keep working.",
  },
  {
    key: 'dangerousAllowPathAppSharing',
    name: 'DANGEROUS: Allow Path App Sharing',
    flag: 'dangerous-allow-path-app-sharing',
    env: 'COVE_DANGEROUS_ALLOW_PATH_APP_SHARING',
    yaml: 'allow_path_app_sharing',
    group: security,
    configPath: ['dangerous', 'allow_path_app_sharing'],
    kind: 'bool',
    default: 'false',
    description:
      "Let path-based apps and port shares be opened by others than their workspace's owner, as their sharing level says. Their pages run on the deployment's own origin, so a shared app could act with every visitor's session; share through subdomain apps (--wildcard-access-url) instead.",
  },
  {
    key: 'dangerousAllowPathAppSiteOwnerAccess',
    name: 'DANGEROUS: Allow Site Owners to Access Path Apps',
    flag: 'dangerous-allow-path-app-site-owner-access',
    env: 'COVE_DANGEROUS_ALLOW_PATH_APP_SITE_OWNER_ACCESS',
    yaml: 'allow_path_app_site_owner_access',
    group: security,
    configPath: ['dangerous', 'allow_path_app_site_owner_access'],
    kind: 'bool',
    default: 'false',
    description:
      "Let site owners open other users' path-based apps. Such an app's page could act with the owner's session and take over the deployment; open apps on their subdomains instead.",
  },
  {
    key: 'userDormancyThresholdMs',
    name: 'User Dormancy Threshold',
    flag: 'user-dormancy-threshold',
    env: 'COVE_USER_DORMANCY_THRESHOLD',
    yaml: 'user_dormancy_threshold',
    group: security,
    configPath: ['user_dormancy_threshold'],
    kind: 'duration',
    default: '2160h',
    description: 'Active users who have not used the deployment for this long become dormant until they sign in again; 0 turns it off.',
  },
  {
    key: 'githubClientId',
    name: 'GitHub Client ID',
    flag: 'oauth2-github-client-id',
    env: 'COVE_OAUTH2_GITHUB_CLIENT_ID',
    yaml: 'github_client_id',
    group: oauth,
    configPath: ['oauth2', 'github', 'client_id'],
    kind: 'string',
    default: '',
    description: 'Client ID of the GitHub OAuth app used for GitHub sign-in.',
  },
  {
    key: 'githubClientSecret',
    name: 'GitHub Client Secret',
    flag: 'oauth2-github-client-secret',
    env: 'COVE_OAUTH2_GITHUB_CLIENT_SECRET',
    yaml: 'github_client_secret',
    group: oauth,
    configPath: ['oauth2', 'github', 'client_secret'],
    kind: 'string',
    default: '',
    secret: true,
    description: 'Client secret of the GitHub OAuth app.',
  },
  {
    key: 'githubAllowedOrgs',
    name: 'GitHub Allowed Orgs',
    flag: 'oauth2-github-allowed-orgs',
    env: 'COVE_OAUTH2_GITHUB_ALLOWED_ORGS',
    yaml: 'github_allowed_orgs',
    group: oauth,
    configPath: ['oauth2', 'github', 'allowed_orgs'],
    kind: 'string-array',
    default: '',
    description:
      'GitHub organizations whose active members may sign in, comma-separated. Required unless --oauth2-github-allow-everyone is set.',
  },
  {
    key: 'githubAllowedTeams',
    name: 'GitHub Allowed Teams',
    flag: 'oauth2-github-allowed-teams',
    env: 'COVE_OAUTH2_GITHUB_ALLOWED_TEAMS',
    yaml: 'github_allowed_teams',
    group: oauth,
    configPath: ['oauth2', 'github', 'allowed_teams'],
    kind: 'string-array',
    default: '',
    description:
      'Teams, as organization/team-slug, whose active members may sign in, comma-separated. Empty allows every member of the allowed organizations.',
  },
  {
    key: 'githubAllowSignups',
    name: 'GitHub Allow Signups',
    flag: 'oauth2-github-allow-signups',
    env: 'COVE_OAUTH2_GITHUB_ALLOW_SIGNUPS',
    yaml: 'github_allow_signups',
    group: oauth,
    configPath: ['oauth2', 'github', 'allow_signups'],
    kind: 'bool',
    default: 'false',
    description:
      'Create an account for a GitHub user who signs in for the first time. Without it, only existing accounts may sign in with GitHub.',
  },
  {
    key: 'githubAllowEveryone',
    name: 'GitHub Allow Everyone',
    flag: 'oauth2-github-allow-everyone',
    env: 'COVE_OAUTH2_GITHUB_ALLOW_EVERYONE',
    yaml: 'github_allow_everyone',
    group: oauth,
    configPath: ['oauth2', 'github', 'allow_everyone'],
    kind: 'bool',
    default: 'false',
    description:
      'Let any GitHub user sign in, whatever organizations they belong to. Cannot be combined with allowed organizations or teams.',
  },
  {
    key: 'githubEnterpriseBaseUrl',
    name: 'GitHub Enterprise Base URL',
    flag: 'oauth2-github-enterprise-base-url',
    env: 'COVE_OAUTH2_GITHUB_ENTERPRISE_BASE_URL',
    yaml: 'github_enterprise_base_url',
    group: oauth,
    configPath: ['oauth2', 'github', 'enterprise_base_url'],
    kind: 'url',
    default: '',
    description:
      'Base URL of a GitHub Enterprise Server, e.g. https://github.example.com: sign-in then goes to its /login/oauth pages and its /api/v3 API instead of github.com.',
  },
  {
    key: 'oidcIssuerUrl',
    name: 'OIDC Issuer URL',
    flag: 'oidc-issuer-url',
    env: 'COVE_OIDC_ISSUER_URL',
    yaml: 'oidc_issuer_url',
    group: oauth,
    configPath: ['oidc', 'issuer_url'],
    kind: 'url',
    default: '',
    description: 'Issuer URL of the OpenID Connect provider used for OIDC sign-in.',
  },
  {
    key: 'oidcClientId',
    name: 'OIDC Client ID',
    flag: 'oidc-client-id',
    env: 'COVE_OIDC_CLIENT_ID',
    yaml: 'oidc_client_id',
    group: oauth,
    configPath: ['oidc', 'client_id'],
    kind: 'string',
    default: '',
    description: 'Client ID registered with the OpenID Connect provider.',
  },
  {
    key: 'oidcClientSecret',
    name: 'OIDC Client Secret',
    flag: 'oidc-client-secret',
    env: 'COVE_OIDC_CLIENT_SECRET',
    yaml: 'oidc_client_secret',
    group: oauth,
    configPath: ['oidc', 'client_secret'],
    kind: 'string',
    default: '',
    secret: true,
    description: 'Client secret registered with the OpenID Connect provider.',
  },
  {
    key: 'oidcEmailDomain',
    name: 'OIDC Email Domain',
    flag: 'oidc-email-domain',
    env: 'COVE_OIDC_EMAIL_DOMAIN',
    yaml: 'oidc_email_domain',
    group: oauth,
    configPath: ['oidc', 'email_domain'],
    kind: 'string-array',
    default: '',
    description: 'Email domains whose users may sign in with OIDC, comma-separated. Empty allows every domain.',
  },
  {
    key: 'oidcAllowSignups',
    name: 'OIDC Allow Signups',
    flag: 'oidc-allow-signups',
    env: 'COVE_OIDC_ALLOW_SIGNUPS',
    yaml: 'oidc_allow_signups',
    group: oauth,
    configPath: ['oidc', 'allow_signups'],
    kind: 'bool',
    default: 'true',
    description: 'Create an account for a user who signs in with OIDC for the first time.',
  },
  {
    key: 'oidcIgnoreEmailVerified',
    name: 'OIDC Ignore Email Verified',
    flag: 'oidc-ignore-email-verified',
    env: 'COVE_OIDC_IGNORE_EMAIL_VERIFIED',
    yaml: 'oidc_ignore_email_verified',
    group: oauth,
    configPath: ['oidc', 'ignore_email_verified'],
    kind: 'bool',
    default: 'false',
    description: 'Accept users whose provider says their email is not verified (email_verified: false).',
  },
  {
    key: 'oidcUsernameField',
    name: 'OIDC Username Field',
    flag: 'oidc-username-field',
    env: 'COVE_OIDC_USERNAME_FIELD',
    yaml: 'oidc_username_field',
    group: oauth,
    configPath: ['oidc', 'username_field'],
    kind: 'string',
    default: 'preferred_username',
    description: 'Claim that holds the username of a new account; the local part of the email when the claim is missing.',
  },
  {
    key: 'oidcNameField',
    name: 'OIDC Name Field',
    flag: 'oidc-name-field',
    env: 'COVE_OIDC_NAME_FIELD',
    yaml: 'oidc_name_field',
    group: oauth,
    configPath: ['oidc', 'name_field'],
    kind: 'string',
    default: 'name',
    description: 'Claim that holds the full name of a new account.',
  },
  {
    key: 'oidcEmailField',
    name: 'OIDC Email Field',
    flag: 'oidc-email-field',
    env: 'COVE_OIDC_EMAIL_FIELD',
    yaml: 'oidc_email_field',
    group: oauth,
    configPath: ['oidc', 'email_field'],
    kind: 'string',
    default: 'email',
    description: 'Claim that holds the email address.',
  },
  {
    key: 'oidcScopes',
    name: 'OIDC Scopes',
    flag: 'oidc-scopes',
    env: 'COVE_OIDC_SCOPES',
    yaml: 'oidc_scopes',
    group: oauth,
    configPath: ['oidc', 'scopes'],
    kind: 'string-array',
    default: 'openid,profile,email',
    description: 'Scopes requested from the OpenID Connect provider, comma-separated.',
  },
  {
    key: 'oidcSignInText',
    name: 'OIDC Sign In Text',
    flag: 'oidc-sign-in-text',
    env: 'COVE_OIDC_SIGN_IN_TEXT',
    yaml: 'oidc_sign_in_text',
    group: oauth,
    configPath: ['oidc', 'sign_in_text'],
    kind: 'string',
    default: 'OpenID Connect',
    description: 'Text of the OIDC sign-in button.',
  },
  {
    key: 'oidcIconUrl',
    name: 'OIDC Icon URL',
    flag: 'oidc-icon-url',
    env: 'COVE_OIDC_ICON_URL',
    yaml: 'oidc_icon_url',
    group: oauth,
    configPath: ['oidc', 'icon_url'],
    kind: 'url',
    default: '',
    description: 'URL of an icon shown on the OIDC sign-in button.',
  },
  {
    key: 'emailSmtpHost',
    name: 'SMTP Host',
    flag: 'email-smtp-host',
    env: 'COVE_EMAIL_SMTP_HOST',
    yaml: 'smtp_host',
    group: email,
    configPath: ['email', 'smarthost'],
    kind: 'string',
    default: '',
    description: 'host:port of the SMTP server that delivers mail. When empty, no mail is sent.',
  },
  {
    key: 'emailSmtpFrom',
    name: 'SMTP From',
    flag: 'email-smtp-from',
    env: 'COVE_EMAIL_SMTP_FROM',
    yaml: 'smtp_from',
    group: email,
    configPath: ['email', 'from'],
    kind: 'string',
    default: '',
    description: 'Sender address of outgoing mail, e.g. cove@example.com.',
  },
  {
    key: 'emailSmtpUsername',
    name: 'SMTP Username',
    flag: 'email-smtp-username',
    env: 'COVE_EMAIL_SMTP_USERNAME',
    yaml: 'smtp_username',
    group: email,
    configPath: ['email', 'auth', 'username'],
    kind: 'string',
    default: '',
    description: 'User name for SMTP authentication (AUTH PLAIN); empty means no authentication.',
  },
  {
    key: 'emailSmtpPassword',
    name: 'SMTP Password',
    flag: 'email-smtp-password',
    env: 'COVE_EMAIL_SMTP_PASSWORD',
    yaml: 'smtp_password',
    group: email,
    configPath: ['email', 'auth', 'password'],
    kind: 'string',
    default: '',
    secret: true,
    description: 'Password for SMTP authentication.',
  },
  {
    key: 'emailSmtpForceTls',
    name: 'SMTP Force TLS',
    flag: 'email-smtp-force-tls',
    env: 'COVE_EMAIL_SMTP_FORCE_TLS',
    yaml: 'smtp_force_tls',
    group: email,
    configPath: ['email', 'force_tls'],
    kind: 'bool',
    default: 'false',
    description: 'Connect with TLS from the start (SMTPS, usually port 465) instead of upgrading with STARTTLS when offered.',
  },
  {
    key: 'disableOwnerWorkspaceExec',
    name: 'Disable Owner Workspace Access',
    flag: 'disable-owner-workspace-access',
    env: 'COVE_DISABLE_OWNER_WORKSPACE_ACCESS',
    yaml: 'disable_owner_workspace_access',
    group: security,
    configPath: ['disable_owner_workspace_exec'],
    kind: 'bool',
    default: 'false',
    description: 'Owners may not open terminals, SSH or apps in workspaces of other users.',
  },
  {
    key: 'allowWorkspaceRenames',
    name: 'Allow Workspace Renames',
    flag: 'allow-workspace-renames',
    env: 'COVE_ALLOW_WORKSPACE_RENAMES',
    yaml: 'allow_workspace_renames',
    group: general,
    configPath: ['allow_workspace_renames'],
    kind: 'bool',
    default: 'false',
    description: 'Let users rename their workspaces.',
  },
  {
    key: 'experiments',
    name: 'Experiments',
    flag: 'experiments',
    env: 'COVE_EXPERIMENTS',
    yaml: 'experiments',
    group: general,
    configPath: ['experiments'],
    kind: 'string-array',
    default: '',
    description: 'Comma-separated experimental features to enable; `*` enables all that are safe.',
  },
  {
    key: 'updateCheck',
    name: 'Update Check',
    flag: 'update-check',
    env: 'COVE_UPDATE_CHECK',
    yaml: 'update_check',
    group: general,
    configPath: ['update_check'],
    kind: 'bool',
    default: 'false',
    description: 'Periodically ask the release feed for a newer version. Off by default: the daemon makes no outbound call.',
  },
  {
    key: 'updateCheckUrl',
    name: 'Update Check URL',
    flag: 'update-check-url',
    env: 'COVE_UPDATE_CHECK_URL',
    yaml: 'update_check_url',
    group: general,
    configPath: ['update_check_url'],
    kind: 'url',
    default: '',
    description:
      'Release feed that --update-check asks, at start and every 24 hours: a JSON document {"version": "x.y.z", "url": "release page"}. Required with --update-check.',
  },
  {
    key: 'sshHostnamePrefix',
    name: 'SSH Host Prefix',
    flag: 'ssh-hostname-prefix',
    env: 'COVE_SSH_HOSTNAME_PREFIX',
    yaml: 'hostname_prefix',
    group: ssh,
    configPath: ['config_ssh', 'hostname_prefix'],
    kind: 'string',
    default: 'cove.',
    description: 'Prefix of the host names that `cove config-ssh` writes for workspaces.',
  },
  {
    key: 'sshConfigOptions',
    name: 'SSH Config Options',
    flag: 'ssh-config-options',
    env: 'COVE_SSH_CONFIG_OPTIONS',
    yaml: 'config_options',
    group: ssh,
    configPath: ['config_ssh', 'ssh_config_options'],
    kind: 'string-array',
    default: '',
    description: 'Extra `Key=Value` SSH options that `cove config-ssh` adds to every workspace host.',
  },
  {
    key: 'licensePublicKeys',
    name: 'License Public Keys',
    flag: 'license-public-keys',
    env: 'COVE_LICENSE_PUBLIC_KEYS',
    yaml: 'public_keys',
    group: licensing,
    configPath: ['licenses', 'public_keys'],
    kind: 'string-array',
    default: '',
    description:
      'More Ed25519 public keys trusted to sign licenses, each `KEY_ID=BASE64` with the base64 of the key in SPKI DER form ' +
      "(the body of its PEM); Cove's own key is always trusted.",
  },
  {
    key: 'awsInstanceIdentityCerts',
    name: 'AWS Instance Identity Certificates',
    flag: 'aws-instance-identity-certs',
    env: 'COVE_AWS_INSTANCE_IDENTITY_CERTS',
    yaml: 'aws_certs',
    group: instanceIdentity,
    configPath: ['instance_identity', 'aws_certs'],
    kind: 'string',
    default: '',
    description:
      'Path to a PEM file of the AWS certificates that sign EC2 instance identity documents (RSA-SHA256). ' +
      'When empty, agents cannot sign in with their AWS instance identity.',
  },
  {
    key: 'azureInstanceIdentityRoots',
    name: 'Azure Instance Identity Roots',
    flag: 'azure-instance-identity-roots',
    env: 'COVE_AZURE_INSTANCE_IDENTITY_ROOTS',
    yaml: 'azure_roots',
    group: instanceIdentity,
    configPath: ['instance_identity', 'azure_roots'],
    kind: 'string',
    default: '',
    description:
      'Path to a PEM file of the certificates trusted as roots (and intermediates) of the chain that signs Azure attested documents. ' +
      'When empty, agents cannot sign in with their Azure instance identity.',
  },
  {
    key: 'googleInstanceIdentityCerts',
    name: 'Google Instance Identity Certificates',
    flag: 'google-instance-identity-certs',
    env: 'COVE_GOOGLE_INSTANCE_IDENTITY_CERTS',
    yaml: 'google_certs',
    group: instanceIdentity,
    configPath: ['instance_identity', 'google_certs'],
    kind: 'string',
    default: '',
    description:
      'Path to the keys that sign Google instance identity tokens: a PEM file of certificates, a JWKS JSON file, or a JSON map of key id to PEM certificate. ' +
      'When empty, agents cannot sign in with their Google instance identity.',
  },
  {
    key: 'swaggerEnable',
    name: 'Enable API Docs',
    flag: 'swagger-enable',
    env: 'COVE_SWAGGER_ENABLE',
    yaml: 'enable',
    group: introspection,
    configPath: ['swagger', 'enable'],
    kind: 'bool',
    default: 'false',
    description: 'Serve the OpenAPI document of the API at /swagger.',
  },
  {
    key: 'prometheusEnable',
    name: 'Prometheus Enable',
    flag: 'prometheus-enable',
    env: 'COVE_PROMETHEUS_ENABLE',
    yaml: 'enable',
    group: prometheus,
    configPath: ['prometheus', 'enable'],
    kind: 'bool',
    default: 'false',
    description: 'Serve Prometheus metrics at /metrics on --prometheus-address.',
  },
  {
    key: 'prometheusAddress',
    name: 'Prometheus Address',
    flag: 'prometheus-address',
    env: 'COVE_PROMETHEUS_ADDRESS',
    yaml: 'address',
    group: prometheus,
    configPath: ['prometheus', 'address'],
    kind: 'string',
    default: '127.0.0.1:2112',
    description: 'Address and port of the metrics listener, apart from the API; use port 0 for a random free port.',
  },
  {
    key: 'healthCheckRefreshMs',
    name: 'Health Check Refresh',
    flag: 'health-check-refresh',
    env: 'COVE_HEALTH_CHECK_REFRESH',
    yaml: 'refresh',
    group: healthCheck,
    configPath: ['healthcheck', 'refresh'],
    kind: 'duration',
    default: '10m',
    description: 'How often the health checks run in the background; /debug/health serves the last report until then.',
  },
  {
    key: 'healthCheckThresholdDatabaseMs',
    name: 'Health Check Database Threshold',
    flag: 'health-check-threshold-database',
    env: 'COVE_HEALTH_CHECK_THRESHOLD_DATABASE',
    yaml: 'threshold_database',
    group: healthCheck,
    configPath: ['healthcheck', 'threshold_database'],
    kind: 'duration',
    default: '15ms',
    description: 'A median database round trip this slow or slower makes the health report warn (EDB02).',
  },
  {
    key: 'verbose',
    name: 'Verbose',
    flag: 'verbose',
    flagShorthand: 'v',
    env: 'COVE_VERBOSE',
    yaml: 'verbose',
    group: introspection,
    configPath: ['verbose'],
    kind: 'bool',
    default: 'false',
    description: 'Log every request and debug details.',
  },
  {
    key: 'logJson',
    name: 'JSON Logs',
    flag: 'log-json',
    env: 'COVE_LOG_JSON',
    yaml: 'log_json',
    group: introspection,
    configPath: ['logging', 'json'],
    kind: 'bool',
    default: 'false',
    description: 'Write logs as JSON lines instead of human-readable text.',
  },
  {
    key: 'configFile',
    name: 'Config File',
    flag: 'config',
    flagShorthand: 'c',
    env: 'COVE_CONFIG_PATH',
    yaml: '',
    group: general,
    configPath: ['config'],
    kind: 'string',
    default: '',
    description: 'A YAML file with settings; flags and environment variables override it.',
    annotations: { cli_only: 'true' },
  },
];

/**
 * Where `npm run package` leaves the single executables: next to the one this daemon runs from,
 * or else `dist/` of the checkout this module belongs to (it runs from `dist/` when built).
 */
export function defaultReleaseDir(): string {
  const single = singleExecutablePath();
  if (single !== undefined) return dirname(single);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5 && !existsSync(join(dir, 'package.json')); i++) dir = dirname(dir);
  return join(dir, 'dist');
}

/** The default data directory: under the user's data directory, as XDG places it. */
export function defaultDataDir(): string {
  const base = process.env['XDG_DATA_HOME'] || join(homedir(), '.local', 'share');
  return join(base, 'cove');
}

/** A setting that could not be read, with where it came from. */
export class OptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OptionError';
  }
}

/** What one source says, as raw text, keyed by option key. */
export type RawValues = Partial<Record<keyof DeploymentValues, string>>;

/** Resolved settings and where each came from. */
export interface ResolvedOptions {
  readonly values: DeploymentValues;
  readonly sources: Readonly<Record<keyof DeploymentValues, ValueSource>>;
}

/**
 * Combines the sources, flags over environment over YAML over defaults, and checks every value.
 * Throws OptionError naming the flag, variable or key at fault.
 */
export function resolveOptions(input: {
  readonly flags?: RawValues;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly yaml?: unknown;
}): ResolvedOptions {
  const values: Record<string, unknown> = {};
  const sources: Record<string, ValueSource> = {};
  const yamlValues = readYamlValues(input.yaml);
  for (const option of OPTION_DEFINITIONS) {
    const fromFlag = input.flags?.[option.key];
    const fromEnv = input.env?.[option.env];
    const fromYaml = yamlValues[option.key];
    const [source, text, origin]: [ValueSource, string, string] =
      fromFlag !== undefined
        ? ['flag', fromFlag, `--${option.flag}`]
        : fromEnv !== undefined && fromEnv !== ''
          ? ['env', fromEnv, option.env]
          : fromYaml !== undefined
            ? ['yaml', fromYaml, `${option.group.yaml}.${option.yaml}`]
            : ['default', option.default, `the default of --${option.flag}`];
    values[option.key] = parseValue(option, text, origin);
    sources[option.key] = source;
  }
  if (values['accessUrl'] === '') values['accessUrl'] = `http://${String(values['httpAddress'])}`;
  checkCombinations(values as unknown as DeploymentValues);
  return {
    values: values as unknown as DeploymentValues,
    sources: sources as Record<keyof DeploymentValues, ValueSource>,
  };
}

/** Settings that are fine one by one but would not work together: refused at start, not at the first sign-in. */
function checkCombinations(values: DeploymentValues): void {
  if (values.githubClientId !== '' || values.githubClientSecret !== '') {
    if (values.githubClientId === '' || values.githubClientSecret === '') {
      throw new OptionError('GitHub sign-in needs both --oauth2-github-client-id and --oauth2-github-client-secret');
    }
    if (values.githubAllowEveryone && values.githubAllowedOrgs.length > 0) {
      throw new OptionError('--oauth2-github-allow-everyone and --oauth2-github-allowed-orgs cannot be used together');
    }
    if (values.githubAllowEveryone && values.githubAllowedTeams.length > 0) {
      throw new OptionError('--oauth2-github-allow-everyone and --oauth2-github-allowed-teams cannot be used together');
    }
    if (!values.githubAllowEveryone && values.githubAllowedOrgs.length === 0) {
      throw new OptionError(
        'GitHub sign-in needs --oauth2-github-allowed-orgs (at least one organization) or --oauth2-github-allow-everyone',
      );
    }
  }
  for (const team of values.githubAllowedTeams) {
    if (!/^[^/\s]+\/[^/\s]+$/.test(team)) {
      throw new OptionError(`--oauth2-github-allowed-teams: "${team}" is not of the form organization/team-slug`);
    }
  }
  if (values.oidcIssuerUrl !== '' && values.oidcClientId === '') {
    throw new OptionError('OIDC sign-in needs --oidc-client-id as well as --oidc-issuer-url');
  }
  if (values.oidcClientId !== '' && values.oidcIssuerUrl === '') {
    throw new OptionError('OIDC sign-in needs --oidc-issuer-url as well as --oidc-client-id');
  }
  if (values.updateCheck && values.updateCheckUrl === '') {
    throw new OptionError('--update-check needs --update-check-url: the release feed to ask');
  }
}

function parseValue(option: OptionDefinition, text: string, origin: string): unknown {
  switch (option.kind) {
    case 'string':
      return text;
    case 'url': {
      if (text === '') return '';
      try {
        const url = new URL(text);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
        return url.toString().replace(/\/$/, '');
      } catch {
        throw new OptionError(`${origin}: "${text}" is not an http or https URL`);
      }
    }
    case 'bool': {
      const lowered = text.trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(lowered)) return true;
      if (['false', '0', 'no', 'off', ''].includes(lowered)) return false;
      throw new OptionError(`${origin}: "${text}" is not a boolean (use true or false)`);
    }
    case 'int': {
      if (!/^-?\d+$/.test(text.trim())) throw new OptionError(`${origin}: "${text}" is not an integer`);
      return Number(text.trim());
    }
    case 'duration': {
      const ms = parseDuration(text);
      if (ms === undefined) throw new OptionError(`${origin}: "${text}" is not a duration (for example 24h, 90m or 30s)`);
      return ms;
    }
    case 'string-array':
      return text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
  }
}

function readYamlValues(document: unknown): RawValues {
  if (document === undefined || document === null) return {};
  if (typeof document !== 'object' || Array.isArray(document)) throw new OptionError('the config file must hold a YAML mapping');
  const raw: RawValues = {};
  const root = document as Record<string, unknown>;
  for (const option of OPTION_DEFINITIONS) {
    if (option.yaml === '') continue;
    const section = root[option.group.yaml];
    if (section === undefined || section === null) continue;
    if (typeof section !== 'object' || Array.isArray(section)) {
      throw new OptionError(`config file: "${option.group.yaml}" must be a mapping`);
    }
    const value = (section as Record<string, unknown>)[option.yaml];
    if (value === undefined || value === null) continue;
    raw[option.key] = Array.isArray(value) ? value.map(String).join(',') : String(value);
  }
  return raw;
}

/**
 * The value of one option as the deployment config shows it: durations in nanoseconds, URLs as
 * objects of their parts, secrets blanked.
 */
export function wireValue(option: OptionDefinition, values: DeploymentValues): unknown {
  const value = values[option.key];
  if (option.secret) return '';
  if (option.kind === 'duration') return msToNs(value as number);
  if (option.kind === 'url' || option.key === 'wildcardAccessUrl') return urlObject(String(value));
  return value;
}

/** A URL setting as the reference's clients read it: the parts of the URL, empty when unset. */
export interface UrlObject {
  readonly scheme: string;
  readonly opaque: string;
  readonly user: null;
  readonly host: string;
  readonly path: string;
  readonly rawPath: string;
  readonly omitHost: boolean;
  readonly forceQuery: boolean;
  readonly rawQuery: string;
  readonly fragment: string;
  readonly rawFragment: string;
}

/** The parts of `text`; a host pattern without a scheme (`*.cove.example.com`) is all host. */
export function urlObject(text: string): UrlObject {
  const empty: UrlObject = {
    scheme: '',
    opaque: '',
    user: null,
    host: '',
    path: '',
    rawPath: '',
    omitHost: false,
    forceQuery: false,
    rawQuery: '',
    fragment: '',
    rawFragment: '',
  };
  if (text === '') return empty;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return { ...empty, host: text };
  const url = new URL(text);
  return {
    ...empty,
    scheme: url.protocol.replace(/:$/, ''),
    host: url.host,
    // Stored URLs have no trailing slash, so a bare `/` is no path at all, as the reference parses it.
    path: url.pathname === '/' ? '' : url.pathname,
    rawQuery: url.search.replace(/^\?/, ''),
    fragment: url.hash.replace(/^#/, ''),
  };
}

/** The text form of a default, for `--help`. */
export function describeDefault(option: OptionDefinition): string {
  if (option.kind === 'duration') {
    const ms = parseDuration(option.default);
    return ms === undefined ? option.default : formatDuration(ms);
  }
  return option.default;
}
