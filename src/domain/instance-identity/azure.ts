import { createHash, verify, X509Certificate } from 'node:crypto';
import { chainsToAnchor, isValidAt } from './certificates.js';
import { reject } from './identity-error.js';
import { Asn1Error, certificateFields, OID, parseSignedData, type SignedData } from './signed-data.js';

/** Names of the certificates that sign Azure attested documents, in every Azure cloud (reference §1.2). */
export const AZURE_SIGNER_NAME = /^(.*\.)?metadata\.(azure\.(com|us|cn)|microsoftazure\.de)$/;

/** Digest algorithms a signer may use, by OID, as node:crypto names them. */
const DIGESTS: Readonly<Record<string, string>> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** Signature algorithms: plain keys (the digest comes from the signer info), or digest-with-key OIDs. */
const SIGNATURES: Readonly<Record<string, { readonly key: 'rsa' | 'ec'; readonly digest?: string }>> = {
  '1.2.840.113549.1.1.1': { key: 'rsa' },
  '1.2.840.113549.1.1.5': { key: 'rsa', digest: 'sha1' },
  '1.2.840.113549.1.1.11': { key: 'rsa', digest: 'sha256' },
  '1.2.840.113549.1.1.12': { key: 'rsa', digest: 'sha384' },
  '1.2.840.113549.1.1.13': { key: 'rsa', digest: 'sha512' },
  '1.2.840.10045.2.1': { key: 'ec' },
  '1.2.840.10045.4.3.2': { key: 'ec', digest: 'sha256' },
  '1.2.840.10045.4.3.3': { key: 'ec', digest: 'sha384' },
  '1.2.840.10045.4.3.4': { key: 'ec', digest: 'sha512' },
};

/** The certificate among `certificates` that the signer identifier names. */
function signerCertificate(data: SignedData): X509Certificate | undefined {
  const { sid } = data.signer;
  return data.certificates.find((certificate) => {
    const fields = certificateFields(certificate);
    if ('subjectKeyIdentifier' in sid) return fields.subjectKeyIdentifier?.equals(sid.subjectKeyIdentifier) ?? false;
    return fields.issuer.equals(sid.issuer) && stripSign(fields.serialNumber).equals(stripSign(sid.serialNumber));
  });
}

/** An INTEGER's bytes without a redundant leading zero, so encodings that differ only there compare equal. */
function stripSign(bytes: Buffer): Buffer {
  return bytes.length > 1 && bytes[0] === 0 ? bytes.subarray(1) : bytes;
}

/** Checks the signature of the signer info over the content (directly, or through the signed attributes). */
function signatureHolds(data: SignedData, certificate: X509Certificate): void {
  const { signer } = data;
  const digest = DIGESTS[signer.digestAlgorithm];
  if (!digest) reject(`the digest algorithm ${signer.digestAlgorithm} is not supported`);
  const algorithm = SIGNATURES[signer.signatureAlgorithm];
  if (!algorithm) reject(`the signature algorithm ${signer.signatureAlgorithm} is not supported`);
  if (algorithm.digest && algorithm.digest !== digest) reject('the signature and digest algorithms disagree');
  const key = certificate.publicKey;
  if (key.asymmetricKeyType !== algorithm.key) reject(`the signer's key is not an ${algorithm.key.toUpperCase()} key`);
  let signed = data.content;
  if (signer.signedAttributes) {
    const [digestValue, ...more] = signer.signedAttributes.messageDigests;
    if (!digestValue || more.length > 0) reject('the signed attributes have no single message digest');
    const expected = createHash(digest).update(data.content).digest();
    if (!digestValue.equals(expected)) reject('the message digest does not match the content');
    const { contentType } = signer.signedAttributes;
    if (contentType !== undefined && contentType !== data.contentType) reject('the content type attribute does not match the content');
    signed = signer.signedAttributes.der;
  }
  let holds = false;
  try {
    holds = verify(digest, signed, key, signer.signature);
  } catch {
    holds = false;
  }
  if (!holds) reject('the signature does not match the signed content');
}

/**
 * Checks an Azure attested document and returns its `vmId`: the PKCS#7 signature must hold under
 * the signer's certificate, that certificate must be named like Azure's metadata service and
 * chain (through the certificates in the PKCS#7 or the trusted ones) to a trusted certificate, all
 * valid at `now`. Throws IdentityRejected.
 */
export function verifyAzureIdentity(signatureBase64: string, trusted: readonly X509Certificate[], now: Date): string {
  if (trusted.length === 0) reject('no Azure root certificates are trusted');
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(signatureBase64)) reject('the signature is not base64');
  let data: SignedData;
  let certificate: X509Certificate | undefined;
  try {
    data = parseSignedData(Buffer.from(signatureBase64, 'base64'));
    certificate = signerCertificate(data);
  } catch (error) {
    if (error instanceof Asn1Error) reject(`the signature is not a PKCS#7 SignedData: ${error.message}`);
    throw error;
  }
  if (!certificate) reject("the PKCS#7 does not carry its signer's certificate");
  const names = certificateFields(certificate).subjectCommonNames;
  if (names.length === 0 || !names.every((name) => AZURE_SIGNER_NAME.test(name))) {
    reject(`the signer certificate (CN=${names.join(', CN=') || 'none'}) is not Azure's metadata service`);
  }
  if (!isValidAt(certificate, now))
    reject(`the signer certificate is not valid at ${now.toISOString()} (valid from ${certificate.validFrom} to ${certificate.validTo})`);
  signatureHolds(data, certificate);
  const intermediates = data.certificates.filter((candidate) => !candidate.raw.equals(certificate.raw));
  if (!chainsToAnchor(certificate, intermediates, trusted, now)) {
    reject('the signer certificate does not chain to a trusted root (every certificate on the way must be valid now)');
  }
  if (data.contentType !== OID.data) reject('the signed content is not data');
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.content.toString('utf8'));
  } catch {
    reject('the signed content is not JSON');
  }
  const vmId = (parsed as { vmId?: unknown } | null)?.vmId;
  if (typeof vmId !== 'string' || vmId === '') reject('the signed content has no vmId');
  return vmId;
}
