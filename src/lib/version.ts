import packageJson from '../../package.json' with { type: 'json' };

/** The version of this build, from package.json. */
export const VERSION: string = packageJson.version;

/** Version of the protocol agents speak to the daemon. */
export const AGENT_API_VERSION = '1.0';

/** Version of the protocol provisioner daemons speak to the daemon. */
export const PROVISIONER_API_VERSION = '1.0';
