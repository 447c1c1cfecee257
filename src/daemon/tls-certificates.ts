import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext, type SecureContext, type SecureContextOptions } from 'node:tls';
import { OptionError, type DeploymentValues } from '../domain/deployment-options.js';
import { opensslCiphers } from '../domain/options/tls-checks.js';

/** One certificate served, with the host names it is chosen for. */
interface ServedCertificate {
  /** DNS names and IP addresses of its subject alternative names, else its common name; lower case. */
  readonly names: readonly string[];
  readonly context: SecureContext;
}

/** Everything the HTTPS listener serves, loaded from the files at one moment. */
export interface TlsCertificates {
  /** The first pair's options: the listener's default context, for clients that name no known host. */
  readonly defaultOptions: SecureContextOptions;
  readonly served: readonly ServedCertificate[];
}

/** The TLS settings the certificates are loaded from. */
type TlsSettings = Pick<
  DeploymentValues,
  'tlsCertFiles' | 'tlsKeyFiles' | 'tlsClientCaFile' | 'tlsMinVersion' | 'tlsCiphers' | 'tlsAllowInsecureCiphers'
>;

const MIN_VERSIONS: Readonly<Record<string, SecureContextOptions['minVersion']>> = {
  tls10: 'TLSv1',
  tls11: 'TLSv1.1',
  tls12: 'TLSv1.2',
  tls13: 'TLSv1.3',
};

/**
 * Reads every certificate and key pair and the client CA, and checks each key belongs to its
 * certificate. Throws an OptionError naming the option and file at fault, so a bad file is
 * refused at start and, on a reload, the certificates served before are kept.
 */
export function loadTlsCertificates(settings: TlsSettings): TlsCertificates {
  const common: SecureContextOptions = { minVersion: MIN_VERSIONS[settings.tlsMinVersion] ?? 'TLSv1.2' };
  const ciphers = opensslCiphers(settings);
  if (ciphers !== '') common.ciphers = ciphers;
  if (settings.tlsClientCaFile !== '') {
    const ca = readPem(settings.tlsClientCaFile, '--tls-client-ca-file');
    try {
      new X509Certificate(ca);
    } catch {
      throw new OptionError(`--tls-client-ca-file ${settings.tlsClientCaFile} holds no PEM certificate`);
    }
    common.ca = ca;
  }
  const served: ServedCertificate[] = [];
  let defaultOptions: SecureContextOptions | undefined;
  settings.tlsCertFiles.forEach((certFile, index) => {
    const keyFile = settings.tlsKeyFiles[index] ?? '';
    const cert = readPem(certFile, '--tls-cert-file');
    const key = readPem(keyFile, '--tls-key-file');
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(cert);
    } catch {
      throw new OptionError(`--tls-cert-file ${certFile} holds no PEM certificate`);
    }
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey(key);
    } catch {
      throw new OptionError(`--tls-key-file ${keyFile} holds no PEM private key (an unencrypted one is needed)`);
    }
    if (!certificate.checkPrivateKey(privateKey)) {
      throw new OptionError(
        `--tls-key-file ${keyFile} is not the key of the certificate in --tls-cert-file ${certFile}: give the key files in the order of the certificate files`,
      );
    }
    const options: SecureContextOptions = { ...common, cert, key };
    defaultOptions ??= options;
    served.push({ names: certificateNames(certificate), context: createSecureContext(options) });
  });
  if (!defaultOptions) throw new OptionError('--tls-enable needs a certificate: give --tls-cert-file and --tls-key-file');
  return { defaultOptions, served };
}

/** The certificate for the host a client named (SNI): an exact name, else a wildcard one; undefined for the default. */
export function certificateFor(certificates: TlsCertificates, serverName: string): SecureContext | undefined {
  const name = serverName.toLowerCase();
  const exact = certificates.served.find((served) => served.names.includes(name));
  if (exact) return exact.context;
  const parent = name.slice(name.indexOf('.') + 1);
  return certificates.served.find((served) => served.names.includes(`*.${parent}`))?.context;
}

function readPem(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw new OptionError(`${flag} ${path} cannot be read (${code}): check the path and that the daemon's user may read it`);
  }
}

function certificateNames(certificate: X509Certificate): string[] {
  const names = (certificate.subjectAltName ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .map((entry) => (entry.startsWith('DNS:') ? entry.slice(4) : entry.startsWith('IP Address:') ? entry.slice(11) : ''))
    .filter((name) => name !== '')
    .map((name) => name.toLowerCase());
  if (names.length > 0) return names;
  const commonName = /(?:^|\n)CN=([^\n]+)/.exec(certificate.subject)?.[1];
  return commonName ? [commonName.toLowerCase()] : [];
}
