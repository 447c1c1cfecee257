import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A certificate and its key, as files and as PEM text. */
export interface TestCertificate {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly key: string;
}

/**
 * Makes certificates with openssl in `dir`: a CA (`ca.crt`), and for each call of `issue` a
 * certificate signed by it. Names that parse as IP addresses go in as IP subject alternative
 * names, the others as DNS names; the first is the common name. P-256 keys: fast to make.
 */
export function testCertificateAuthority(dir: string): {
  readonly caFile: string;
  readonly ca: string;
  issue(file: string, names: readonly string[], usage?: 'server' | 'client'): TestCertificate;
} {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const keyArgs = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...keyArgs, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=Cove Test CA');
  const caFile = join(dir, 'ca.crt');
  return {
    caFile,
    ca: readFileSync(caFile, 'utf8'),
    issue(file, names, usage = 'server') {
      const alt = names.map((name) => (/^[\d.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
      const certFile = join(dir, `${file}.crt`);
      const keyFile = join(dir, `${file}.key`);
      openssl(
        'req',
        '-x509',
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        ...keyArgs,
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '2',
        '-subj',
        `/CN=${names[0] ?? file}`,
        '-addext',
        `subjectAltName=${alt}`,
        '-addext',
        `extendedKeyUsage=${usage === 'server' ? 'serverAuth' : 'clientAuth'}`,
      );
      return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
    },
  };
}
