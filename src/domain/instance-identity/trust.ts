import { readFile } from 'node:fs/promises';
import type { KeyObject, X509Certificate } from 'node:crypto';
import { parsePemCertificates } from './certificates.js';
import { parseGoogleKeys, type GoogleKey } from './google.js';

/** The cloud keys and certificates a deployment trusts for instance identity; empty lists trust nothing. */
export interface InstanceIdentityTrust {
  /** Public keys of the AWS certificates that sign EC2 identity documents. */
  readonly aws: readonly KeyObject[];
  /** Certificates an Azure attested document's signer must chain to. */
  readonly azure: readonly X509Certificate[];
  readonly google: readonly GoogleKey[];
}

/** Trusts nothing: every exchange is refused. */
export const NO_TRUST: InstanceIdentityTrust = { aws: [], azure: [], google: [] };

/** The trust settings: a path per cloud, empty for none. */
export interface TrustPaths {
  readonly awsInstanceIdentityCerts: string;
  readonly azureInstanceIdentityRoots: string;
  readonly googleInstanceIdentityCerts: string;
}

/**
 * Reads the files the trust settings name. A file that cannot be read or holds nothing usable is
 * an error naming its flag, so a deployment with a typo fails at start rather than refusing every
 * agent later.
 */
export async function loadInstanceIdentityTrust(paths: TrustPaths): Promise<InstanceIdentityTrust> {
  const load = async <T>(path: string, flag: string, parse: (text: string) => T[]): Promise<T[]> => {
    if (path === '') return [];
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new Error(`--${flag}: cannot read ${path}: ${(error as Error).message}`);
    }
    let parsed: T[];
    try {
      parsed = parse(text);
    } catch (error) {
      throw new Error(`--${flag}: ${path}: ${(error as Error).message}`);
    }
    if (parsed.length === 0) throw new Error(`--${flag}: ${path} holds no PEM certificates`);
    return parsed;
  };
  return {
    aws: (await load(paths.awsInstanceIdentityCerts, 'aws-instance-identity-certs', parsePemCertificates)).map(
      (certificate) => certificate.publicKey,
    ),
    azure: await load(paths.azureInstanceIdentityRoots, 'azure-instance-identity-roots', parsePemCertificates),
    google: await load(paths.googleInstanceIdentityCerts, 'google-instance-identity-certs', parseGoogleKeys),
  };
}
