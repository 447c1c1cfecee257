import { X509Certificate } from 'node:crypto';
import {
  DerError,
  isContext,
  isUniversal,
  OID,
  readDer,
  readIntegerBytes,
  readOctets,
  readOid,
  readString,
  sequence,
  UNIVERSAL,
  type DerNode,
} from './der-reader.js';

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

/** What PKCS#7 signer matching and name checks need from a certificate, read from its DER. */
export interface CertificateFields {
  readonly serialNumber: Buffer;
  /** The DER of the issuer Name, as written. */
  readonly issuer: Buffer;
  /** Every common name (CN) of the subject, in order. */
  readonly subjectCommonNames: readonly string[];
  /** The subject key identifier extension's value, if the certificate has one. */
  readonly subjectKeyIdentifier: Buffer | undefined;
}

/** Reads the serial number, issuer, subject CNs and subject key identifier of a certificate. */
export function certificateFields(certificate: X509Certificate): CertificateFields {
  const [tbsNode] = sequence(readDer(certificate.raw), 'the certificate');
  const tbs = sequence(tbsNode, 'the certificate body');
  // The version is [0] EXPLICIT and absent for v1 certificates.
  const at = isContext(tbs[0], 0) ? 1 : 0;
  const serialNumber = readIntegerBytes(tbs[at], 'the serial number');
  const issuer = tbs[at + 2];
  if (!isUniversal(issuer, UNIVERSAL.SEQUENCE)) throw new DerError('the issuer name is missing');
  const subject = tbs[at + 4];
  let subjectKeyIdentifier: Buffer | undefined;
  const extensions = tbs.slice(at + 6).find((node) => isContext(node, 3));
  if (extensions) {
    for (const extension of sequence(extensions.children[0], 'the extensions')) {
      const fields = sequence(extension, 'an extension');
      if (readOid(fields[0], 'an extension id') !== OID.subjectKeyIdentifier) continue;
      const value = readOctets(fields.at(-1), 'the subject key identifier extension');
      subjectKeyIdentifier = readOctets(readDer(value), 'the subject key identifier');
    }
  }
  return { serialNumber, issuer: issuer.raw, subjectCommonNames: commonNames(subject), subjectKeyIdentifier };
}

/** The CN attributes of a Name: a SEQUENCE of SETs of {type, value}. */
function commonNames(name: DerNode | undefined): string[] {
  const names: string[] = [];
  for (const rdn of sequence(name, 'the subject name')) {
    if (!isUniversal(rdn, UNIVERSAL.SET)) throw new DerError('the subject name is malformed');
    for (const attribute of rdn.children) {
      const [type, value] = sequence(attribute, 'a name attribute');
      if (readOid(type, 'a name attribute type') === OID.commonName) names.push(readString(value, 'a common name'));
    }
  }
  return names;
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
