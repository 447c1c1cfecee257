import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The SSH section of `--help` and of the YAML file. */
export const SSH_GROUP: OptionGroup = { name: 'SSH', yaml: 'ssh', description: 'What `cove config-ssh` writes for clients.' };

/** What the SSH options resolve to. */
export interface SshValues {
  readonly sshHostnamePrefix: string;
  readonly sshConfigOptions: readonly string[];
}

/** The SSH options, in `--help` order. */
export const SSH_OPTIONS: readonly OptionDefinition<keyof SshValues>[] = [
  {
    key: 'sshHostnamePrefix',
    name: 'SSH Host Prefix',
    flag: 'ssh-hostname-prefix',
    env: 'COVE_SSH_HOSTNAME_PREFIX',
    yaml: 'hostname_prefix',
    group: SSH_GROUP,
    configPath: ['config_ssh', 'DeploymentName'],
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
    group: SSH_GROUP,
    configPath: ['config_ssh', 'SSHConfigOptions'],
    kind: 'string-array',
    default: '',
    description: 'Extra `Key=Value` SSH options that `cove config-ssh` adds to every workspace host.',
  },
];
