import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The general section of `--help` and of the YAML file. */
export const GENERAL_GROUP: OptionGroup = { name: 'General', yaml: 'general', description: 'Everything else.' };

/** What the general options resolve to. */
export interface GeneralValues {
  readonly allowWorkspaceRenames: boolean;
  readonly experiments: readonly string[];
  readonly updateCheck: boolean;
  readonly updateCheckUrl: string;
  readonly configFile: string;
}

/** The general options, in `--help` order. */
export const GENERAL_OPTIONS: readonly OptionDefinition<keyof GeneralValues>[] = [
  {
    key: 'allowWorkspaceRenames',
    name: 'Allow Workspace Renames',
    flag: 'allow-workspace-renames',
    env: 'COVE_ALLOW_WORKSPACE_RENAMES',
    yaml: 'allow_workspace_renames',
    group: GENERAL_GROUP,
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
    group: GENERAL_GROUP,
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
    group: GENERAL_GROUP,
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
    group: GENERAL_GROUP,
    configPath: ['update_check_url'],
    kind: 'url',
    default: '',
    description:
      'Release feed that --update-check asks, at start and every 24 hours: a JSON document {"version": "x.y.z", "url": "release page"}. Required with --update-check.',
  },
  {
    key: 'configFile',
    name: 'Config File',
    flag: 'config',
    flagShorthand: 'c',
    env: 'COVE_CONFIG_PATH',
    yaml: '',
    group: GENERAL_GROUP,
    configPath: ['config'],
    kind: 'string',
    default: '',
    description: 'A YAML file with settings; flags and environment variables override it.',
    annotations: { cli_only: 'true' },
  },
];
