import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The instance identity section of `--help` and of the YAML file. */
export const INSTANCE_IDENTITY_GROUP: OptionGroup = {
  name: 'Instance Identity',
  yaml: 'instance_identity',
  description: 'Certificates trusted when workspace agents on cloud machines sign in with their instance identity.',
};

/** What the instance identity options resolve to. */
export interface InstanceIdentityValues {
  readonly awsInstanceIdentityCerts: string;
  readonly azureInstanceIdentityRoots: string;
  readonly googleInstanceIdentityCerts: string;
}

/** The instance identity options, in `--help` order. */
export const INSTANCE_IDENTITY_OPTIONS: readonly OptionDefinition<keyof InstanceIdentityValues>[] = [
  {
    key: 'awsInstanceIdentityCerts',
    name: 'AWS Instance Identity Certificates',
    flag: 'aws-instance-identity-certs',
    env: 'COVE_AWS_INSTANCE_IDENTITY_CERTS',
    yaml: 'aws_certs',
    group: INSTANCE_IDENTITY_GROUP,
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
    group: INSTANCE_IDENTITY_GROUP,
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
    group: INSTANCE_IDENTITY_GROUP,
    configPath: ['instance_identity', 'google_certs'],
    kind: 'string',
    default: '',
    description:
      'Path to the keys that sign Google instance identity tokens: a PEM file of certificates, a JWKS JSON file, or a JSON map of key id to PEM certificate. ' +
      'When empty, agents cannot sign in with their Google instance identity.',
  },
];
