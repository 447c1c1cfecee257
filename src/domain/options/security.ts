import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The security section of `--help` and of the YAML file. */
export const SECURITY_GROUP: OptionGroup = { name: 'Security', yaml: 'security', description: 'Sign-in methods and privileged access.' };

/** What the security options resolve to; durations are milliseconds. */
export interface SecurityValues {
  readonly disablePasswordAuth: boolean;
  readonly disablePathApps: boolean;
  readonly dangerousAllowPathAppSharing: boolean;
  readonly dangerousAllowPathAppSiteOwnerAccess: boolean;
  readonly userDormancyThresholdMs: number;
  readonly disableOwnerWorkspaceExec: boolean;
  /** Base64 keys that encrypt OAuth tokens in the database, the sealing one first; empty: tokens are stored as they are. */
  readonly externalTokenEncryptionKeys: readonly string[];
}

/** The security options, in `--help` order. */
export const SECURITY_OPTIONS: readonly OptionDefinition<keyof SecurityValues>[] = [
  {
    key: 'disablePasswordAuth',
    name: 'Disable Password Authentication',
    flag: 'disable-password-auth',
    env: 'COVE_DISABLE_PASSWORD_AUTH',
    yaml: 'disable_password_auth',
    group: SECURITY_GROUP,
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
    group: SECURITY_GROUP,
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
    group: SECURITY_GROUP,
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
    group: SECURITY_GROUP,
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
    group: SECURITY_GROUP,
    configPath: ['user_dormancy_threshold'],
    kind: 'duration',
    default: '2160h',
    description: 'Active users who have not used the deployment for this long become dormant until they sign in again; 0 turns it off.',
  },
  {
    key: 'disableOwnerWorkspaceExec',
    name: 'Disable Owner Workspace Access',
    flag: 'disable-owner-workspace-access',
    env: 'COVE_DISABLE_OWNER_WORKSPACE_ACCESS',
    yaml: 'disable_owner_workspace_access',
    group: SECURITY_GROUP,
    configPath: ['disable_owner_workspace_exec'],
    kind: 'bool',
    default: 'false',
    description: 'Owners may not open terminals, SSH or apps in workspaces of other users.',
  },
  {
    key: 'externalTokenEncryptionKeys',
    name: 'External Token Encryption Keys',
    flag: 'external-token-encryption-keys',
    env: 'COVE_EXTERNAL_TOKEN_ENCRYPTION_KEYS',
    // Keys belong in the environment or a flag, never in a config file that is easily shared.
    yaml: '',
    group: SECURITY_GROUP,
    configPath: ['external_token_encryption_keys'],
    kind: 'string-array',
    default: '',
    secret: true,
    description:
      'Encrypt the OAuth tokens of external auth links in the database with AES-256-GCM: a comma-separated list of base64 keys of exactly 32 bytes each. The first key encrypts; the others only decrypt, while "cove server dbcrypt rotate" moves tokens to the first. Without keys, tokens are stored as they are.',
  },
];
