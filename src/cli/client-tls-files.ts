import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { setClientTls } from '../sdk/client-tls.js';
import { CliError } from './cli-error.js';
import type { GlobalOptions } from './command.js';

/**
 * Reads the files of `--client-tls-ca-file`, `--client-tls-cert-file` and `--client-tls-key-file`
 * and makes every connection of this process use them: a deployment whose certificate a private
 * CA signed is trusted (beside the public CAs built in), and the client certificate is presented to one
 * that asks for it. Done before the command runs, so a missing file fails at once, naming its option.
 */
export function applyClientTls(global: GlobalOptions): void {
  const { clientTlsCaFile, clientTlsCertFile, clientTlsKeyFile } = global;
  if (!clientTlsCaFile && !clientTlsCertFile && !clientTlsKeyFile) return;
  if (Boolean(clientTlsCertFile) !== Boolean(clientTlsKeyFile)) {
    throw new CliError('A client certificate needs its key: give both --client-tls-cert-file and --client-tls-key-file.');
  }
  const ca = clientTlsCaFile
    ? [...rootCertificates, readPem(clientTlsCaFile, '--client-tls-ca-file', 'COVE_CLIENT_TLS_CA_FILE')]
    : undefined;
  setClientTls({
    ...(ca ? { ca } : {}),
    ...(clientTlsCertFile ? { cert: readPem(clientTlsCertFile, '--client-tls-cert-file', 'COVE_CLIENT_TLS_CERT_FILE') } : {}),
    ...(clientTlsKeyFile ? { key: readPem(clientTlsKeyFile, '--client-tls-key-file', 'COVE_CLIENT_TLS_KEY_FILE') } : {}),
  });
}

function readPem(path: string, flag: string, variable: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read ${path} (${flag}): ${(error as Error).message}`, { hint: `Check ${flag} (or ${variable}).` });
  }
  if (!text.includes('-----BEGIN '))
    throw new CliError(`${path} (${flag}) is not a PEM file.`, { hint: `Check ${flag} (or ${variable}).` });
  return text;
}
