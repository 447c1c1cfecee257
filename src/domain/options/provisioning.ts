import { defaultReleaseDir } from './default-release-dir.js';
import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The provisioning section of `--help` and of the YAML file. */
export const PROVISIONING_GROUP: OptionGroup = {
  name: 'Provisioning',
  yaml: 'provisioning',
  description: 'Provisioner daemons built into the server.',
};

/** What the provisioning options resolve to. */
export interface ProvisioningValues {
  readonly provisionerDaemons: number;
  readonly releaseDir: string;
}

/** The provisioning options, in `--help` order. */
export const PROVISIONING_OPTIONS: readonly OptionDefinition<keyof ProvisioningValues>[] = [
  {
    key: 'provisionerDaemons',
    name: 'Provisioner Daemons',
    flag: 'provisioner-daemons',
    env: 'COVE_PROVISIONER_DAEMONS',
    yaml: 'daemons',
    group: PROVISIONING_GROUP,
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
    group: PROVISIONING_GROUP,
    configPath: ['provisioner', 'release_dir'],
    kind: 'string',
    default: defaultReleaseDir(),
    description:
      'Directory of the single executables (cove-linux-x64, cove-linux-arm64) that GET /bin/cove-linux-amd64 and /bin/cove-linux-arm64 serve, so templates on other machines can fetch the agent. Defaults to the directory of the running single executable, or dist/ of this checkout.',
  },
];
