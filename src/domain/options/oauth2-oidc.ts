import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The OAuth2 and OIDC section of `--help` and of the YAML file. */
export const OAUTH2_OIDC_GROUP: OptionGroup = { name: 'OAuth2 and OIDC', yaml: 'oauth2', description: 'External sign-in providers.' };

/** What the OAuth2 and OIDC options resolve to. */
export interface OAuth2OidcValues {
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
  readonly oidcGroupField: string;
  readonly oidcGroupMapping: string;
  readonly oidcGroupRegexFilter: string;
  readonly oidcGroupAutoCreate: boolean;
  readonly oidcAllowedGroups: readonly string[];
  readonly oidcUserRoleField: string;
  readonly oidcUserRoleMapping: string;
}

/** The OAuth2 and OIDC options, in `--help` order. */
export const OAUTH2_OIDC_OPTIONS: readonly OptionDefinition<keyof OAuth2OidcValues>[] = [
  {
    key: 'githubClientId',
    name: 'GitHub Client ID',
    flag: 'oauth2-github-client-id',
    env: 'COVE_OAUTH2_GITHUB_CLIENT_ID',
    yaml: 'github_client_id',
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
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
    group: OAUTH2_OIDC_GROUP,
    configPath: ['oidc', 'icon_url'],
    kind: 'url',
    default: '',
    description: 'URL of an icon shown on the OIDC sign-in button.',
  },
  {
    key: 'oidcGroupField',
    name: 'OIDC Group Field',
    flag: 'oidc-group-field',
    env: 'COVE_OIDC_GROUP_FIELD',
    yaml: 'oidc_group_field',
    group: OAUTH2_OIDC_GROUP,
    configPath: ['oidc', 'groups_field'],
    kind: 'string',
    default: '',
    description:
      'Claim that holds the groups of the user. When set, every OIDC sign-in makes the user a member of exactly the groups of the default organization this claim names (after the mapping and the filter).',
  },
  {
    key: 'oidcGroupMapping',
    name: 'OIDC Group Mapping',
    flag: 'oidc-group-mapping',
    env: 'COVE_OIDC_GROUP_MAPPING',
    yaml: 'oidc_group_mapping',
    group: OAUTH2_OIDC_GROUP,
    configPath: ['oidc', 'group_mapping'],
    kind: 'string',
    default: '{}',
    description:
      'JSON object from a value of the group claim to the name of a group, or a list of names, e.g. {"ldap-admins":"admins"}. Values not in it name the group of the same name.',
  },
  {
    key: 'oidcGroupRegexFilter',
    name: 'OIDC Group Regex Filter',
    flag: 'oidc-group-regex-filter',
    env: 'COVE_OIDC_GROUP_REGEX_FILTER',
    yaml: 'oidc_group_regex_filter',
    group: OAUTH2_OIDC_GROUP,
    configPath: ['oidc', 'group_regex_filter'],
    kind: 'string',
    default: '',
    description: 'Regular expression a group name (after the mapping) must match to be synced; the others are ignored.',
  },
  {
    key: 'oidcGroupAutoCreate',
    name: 'OIDC Group Auto Create',
    flag: 'oidc-group-auto-create',
    env: 'COVE_OIDC_GROUP_AUTO_CREATE',
    yaml: 'oidc_group_auto_create',
    group: OAUTH2_OIDC_GROUP,
    configPath: ['oidc', 'group_auto_create'],
    kind: 'bool',
    default: 'false',
    description: 'Create the groups the group claim names that do not exist yet, instead of ignoring them.',
  },
  {
    key: 'oidcAllowedGroups',
    name: 'OIDC Allowed Groups',
    flag: 'oidc-allowed-groups',
    env: 'COVE_OIDC_ALLOWED_GROUPS',
    yaml: 'oidc_allowed_groups',
    group: OAUTH2_OIDC_GROUP,
    configPath: ['oidc', 'group_allow_list'],
    kind: 'string-array',
    default: '',
    description:
      'Values of the group claim (before the mapping) of which a user must have at least one to sign in, comma-separated. Empty lets everyone in. Needs --oidc-group-field.',
  },
  {
    key: 'oidcUserRoleField',
    name: 'OIDC User Role Field',
    flag: 'oidc-user-role-field',
    env: 'COVE_OIDC_USER_ROLE_FIELD',
    yaml: 'oidc_user_role_field',
    group: OAUTH2_OIDC_GROUP,
    configPath: ['oidc', 'user_role_field'],
    kind: 'string',
    default: '',
    description:
      "Claim that holds the site roles of the user. When set, every OIDC sign-in sets the user's site roles to the ones this claim names (after the mapping); unknown roles are ignored.",
  },
  {
    key: 'oidcUserRoleMapping',
    name: 'OIDC User Role Mapping',
    flag: 'oidc-user-role-mapping',
    env: 'COVE_OIDC_USER_ROLE_MAPPING',
    yaml: 'oidc_user_role_mapping',
    group: OAUTH2_OIDC_GROUP,
    configPath: ['oidc', 'user_role_mapping'],
    kind: 'string',
    default: '{}',
    description:
      'JSON object from a value of the role claim to a list of site role names, e.g. {"ops":["template-admin","auditor"]}. Values not in it name the role of the same name.',
  },
];
