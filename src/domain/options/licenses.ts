import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The license section of `--help` and of the YAML file. */
export const LICENSES_GROUP: OptionGroup = {
  name: 'Licenses',
  yaml: 'licenses',
  description: 'Who may issue licenses to this deployment.',
};

/** What the license options resolve to. */
export interface LicenseValues {
  readonly licensePublicKeys: readonly string[];
}

/** The license options, in `--help` order. */
export const LICENSE_OPTIONS: readonly OptionDefinition<keyof LicenseValues>[] = [
  {
    key: 'licensePublicKeys',
    name: 'License Public Keys',
    flag: 'license-public-keys',
    env: 'COVE_LICENSE_PUBLIC_KEYS',
    yaml: 'public_keys',
    group: LICENSES_GROUP,
    configPath: ['licenses', 'public_keys'],
    kind: 'string-array',
    default: '',
    description:
      'More Ed25519 public keys trusted to sign licenses, each `KEY_ID=BASE64` with the base64 of the key in SPKI DER form ' +
      "(the body of its PEM); Cove's own key is always trusted.",
  },
];
