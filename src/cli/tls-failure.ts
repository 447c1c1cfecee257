/** Codes of a deployment certificate this process does not trust. */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

/** What the CLI says when a connection failed in its TLS handshake; undefined for other failures. */
export function tlsFailure(cause: unknown): { message: string; hint: string } | undefined {
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  if (UNTRUSTED.has(code)) {
    return {
      message: `The deployment's TLS certificate is not signed by a CA this computer trusts (${code}).`,
      hint: "Give the deployment's CA certificate with --client-tls-ca-file (or COVE_CLIENT_TLS_CA_FILE).",
    };
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return { message: `The deployment's TLS certificate is not valid now (${code}).`, hint: 'Ask its operator to renew it.' };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return {
      message: "The deployment's TLS certificate is not for the host in the URL (ERR_TLS_CERT_ALTNAME_INVALID).",
      hint: 'Use the host name the certificate names (the access URL).',
    };
  }
  if (/ALERT_(CERTIFICATE_REQUIRED|BAD_CERTIFICATE|UNKNOWN_CA|HANDSHAKE_FAILURE)$/.test(code)) {
    return {
      message: `The deployment refused this client's TLS certificate, or its lack of one (${code}).`,
      hint: 'Give a client certificate it trusts with --client-tls-cert-file and --client-tls-key-file (or COVE_CLIENT_TLS_CERT_FILE and COVE_CLIENT_TLS_KEY_FILE).',
    };
  }
  return undefined;
}
