import { X509Certificate } from 'node:crypto';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle, in order. Throws naming the one that does not parse. */
export function parsePemCertificates(text: string): X509Certificate[] {
  const certificates: X509Certificate[] = [];
  for (const match of text.matchAll(PEM_CERTIFICATE)) {
    try {
      certificates.push(new X509Certificate(match[0]));
    } catch (error) {
      throw new Error(`certificate ${certificates.length + 1} of the PEM bundle does not parse: ${(error as Error).message}`);
    }
  }
  return certificates;
}

/** Whether `now` falls within the certificate's validity period. */
export function isValidAt(certificate: X509Certificate, now: Date): boolean {
  const from = Date.parse(certificate.validFrom);
  const to = Date.parse(certificate.validTo);
  const time = now.getTime();
  return Number.isFinite(from) && Number.isFinite(to) && time >= from && time <= to;
}

/** Whether `issuer` issued `certificate` and its key made the certificate's signature. */
function issuedBy(certificate: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return certificate.checkIssued(issuer) && certificate.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/** Longer chains than this are not searched. */
const MAX_CHAIN_LENGTH = 8;

/**
 * Whether `leaf` chains up to one of `anchors`: each certificate issued and signed by the next,
 * each valid at `now`, every intermediate (taken from `intermediates`) a CA. An anchor is trusted
 * as it is, whether it is a root or an intermediate someone chose to trust.
 */
export function chainsToAnchor(
  leaf: X509Certificate,
  intermediates: readonly X509Certificate[],
  anchors: readonly X509Certificate[],
  now: Date,
): boolean {
  const search = (certificate: X509Certificate, path: readonly X509Certificate[]): boolean => {
    if (!isValidAt(certificate, now)) return false;
    if (anchors.some((anchor) => anchor.raw.equals(certificate.raw))) return true;
    if (anchors.some((anchor) => isValidAt(anchor, now) && issuedBy(certificate, anchor))) return true;
    if (path.length >= MAX_CHAIN_LENGTH) return false;
    return intermediates.some(
      (intermediate) =>
        intermediate.ca &&
        !path.some((seen) => seen.raw.equals(intermediate.raw)) &&
        issuedBy(certificate, intermediate) &&
        search(intermediate, [...path, intermediate]),
    );
  };
  return search(leaf, [leaf]);
}
