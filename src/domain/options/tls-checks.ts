import { OptionError } from './option-error.js';
import { TLS_CLIENT_AUTH_POLICIES, TLS_MIN_VERSIONS, type TlsValues } from './tls.js';

/** TLS 1.3 suites, always offered: OpenSSL takes them apart from the TLS 1.2 list. */
const TLS13_SUITES = 'TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256';

/** TLS 1.2 suites with forward secrecy and no known weakness, by IANA name, with OpenSSL's name. */
const SECURE_SUITES: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
};

/** Suites only --tls-allow-insecure-ciphers lets in: no forward secrecy, or CBC with SHA-256 (timing attacks). */
const INSECURE_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
};

/** What the TLS checks need beyond the TLS options. */
type CheckedValues = TlsValues & { readonly httpAddress: string; readonly provisionerDaemons: number };

/**
 * Refuses TLS settings that cannot work together, at start, naming the option to change. Files
 * are read later, when the listener loads them (tls-certificates.ts), so a check here never
 * depends on the disk.
 */
export function checkTlsOptions(values: CheckedValues): void {
  if (!(TLS_MIN_VERSIONS as readonly string[]).includes(values.tlsMinVersion)) {
    throw new OptionError(`--tls-min-version: "${values.tlsMinVersion}" is not one of ${TLS_MIN_VERSIONS.join(', ')}`);
  }
  if (!(TLS_CLIENT_AUTH_POLICIES as readonly string[]).includes(values.tlsClientAuth)) {
    throw new OptionError(`--tls-client-auth: "${values.tlsClientAuth}" is not one of ${TLS_CLIENT_AUTH_POLICIES.join(', ')}`);
  }
  hstsHeader(values.strictTransportSecurity, values.strictTransportSecurityOptions);
  opensslCiphers(values);
  if (!values.tlsEnable) {
    if (values.httpAddress === '') throw new OptionError('--http-address is empty and TLS is off: set --http-address, or --tls-enable');
    return;
  }
  if (values.tlsAddress === '') throw new OptionError('--tls-enable needs --tls-address: the address to serve HTTPS on');
  if (values.tlsCertFiles.length === 0) {
    throw new OptionError(
      '--tls-enable needs a certificate: give --tls-cert-file and --tls-key-file (one key file for each certificate file)',
    );
  }
  if (values.tlsCertFiles.length !== values.tlsKeyFiles.length) {
    throw new OptionError(
      `--tls-cert-file names ${values.tlsCertFiles.length} file(s) but --tls-key-file ${values.tlsKeyFiles.length}: give one key file for each certificate file, in the same order`,
    );
  }
  // The built-in provisioner daemons reach the API over the plain listener on this host.
  if (values.httpAddress === '' && values.provisionerDaemons > 0) {
    throw new OptionError(
      'the built-in provisioner daemons reach the API over --http-address: keep it (a loopback address such as 127.0.0.1:3000 is enough), or set --provisioner-daemons 0 and run external ones',
    );
  }
}

/** The Strict-Transport-Security header for these settings; empty when off. Throws on an unknown option. */
export function hstsHeader(maxAgeSeconds: number, options: readonly string[]): string {
  if (maxAgeSeconds < 0) throw new OptionError('--strict-transport-security: seconds cannot be negative (0 sends no header)');
  const parts = [`max-age=${maxAgeSeconds}`];
  for (const option of options) {
    const known = ['includeSubDomains', 'preload'].find((name) => name.toLowerCase() === option.toLowerCase());
    if (!known) {
      throw new OptionError(`--strict-transport-security-options: "${option}" is not one of includeSubDomains, preload`);
    }
    parts.push(known);
  }
  if (maxAgeSeconds === 0) return '';
  return parts.join('; ');
}

/** The `ciphers` text OpenSSL takes for --tls-ciphers; empty for Node's defaults. Throws on an unknown or refused suite. */
export function opensslCiphers(values: Pick<TlsValues, 'tlsCiphers' | 'tlsAllowInsecureCiphers' | 'tlsMinVersion'>): string {
  if (values.tlsCiphers.length === 0) return '';
  if (values.tlsMinVersion === 'tls13') {
    throw new OptionError('--tls-ciphers cannot be used with --tls-min-version tls13: TLS 1.3 suites are not chosen');
  }
  const names = values.tlsCiphers.map((name) => {
    const secure = SECURE_SUITES[name];
    if (secure) return secure;
    const insecure = INSECURE_SUITES[name];
    if (insecure && values.tlsAllowInsecureCiphers) return insecure;
    if (insecure) throw new OptionError(`--tls-ciphers: ${name} is insecure; add --tls-allow-insecure-ciphers to use it anyway`);
    throw new OptionError(
      `--tls-ciphers: "${name}" is not a TLS 1.2 cipher suite known here (one of ${Object.keys(SECURE_SUITES).join(', ')})`,
    );
  });
  return [TLS13_SUITES, ...names].join(':');
}
