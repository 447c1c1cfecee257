import { X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/** Object identifiers the verifiers compare against. */
export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  commonName: '2.5.4.3',
  subjectKeyIdentifier: '2.5.29.14',
} as const;

/** Bytes that are not the ASN.1 structure expected; the message says which part. */
export class Asn1Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Asn1Error';
  }
}

/** The parts of a PKCS#7 / CMS SignedData with one signer that verification needs. */
export interface SignedData {
  readonly contentType: string;
  /** The encapsulated content's octets. */
  readonly content: Buffer;
  readonly certificates: readonly X509Certificate[];
  readonly signer: SignerInfo;
}

export interface SignerInfo {
  /** How the signer names its certificate. */
  readonly sid: { readonly issuer: Buffer; readonly serialNumber: Buffer } | { readonly subjectKeyIdentifier: Buffer };
  readonly digestAlgorithm: string;
  /** The signed attributes, if any: their DER as SET OF (what was signed), and the two verification reads. */
  readonly signedAttributes:
    | {
        readonly der: Buffer;
        /** Every messageDigest value. */
        readonly messageDigests: readonly Buffer[];
        /** The contentType attribute's value, if present. */
        readonly contentType: string | undefined;
      }
    | undefined;
  readonly signatureAlgorithm: string;
  readonly signature: Buffer;
}

/** What PKCS#7 signer matching and name checks need from a certificate. */
export interface CertificateFields {
  readonly serialNumber: Buffer;
  /** The DER of the issuer Name. */
  readonly issuer: Buffer;
  /** Every common name (CN) of the subject, in order. */
  readonly subjectCommonNames: readonly string[];
  /** The subject key identifier extension's value, if the certificate has one. */
  readonly subjectKeyIdentifier: Buffer | undefined;
}

/**
 * Parses a DER (or BER, as `openssl cms -stream` writes) PKCS#7 ContentInfo holding SignedData
 * with exactly one signer and its content attached, with asn1js and pkijs. Throws Asn1Error.
 */
export function parseSignedData(bytes: Buffer): SignedData {
  const contentInfo = fromSchema('the PKCS#7 content info', bytes, (schema) => {
    // The content type first: another type says more than "malformed" would.
    const [type] = schema instanceof asn1js.Sequence ? schema.valueBlock.value : [];
    if (type instanceof asn1js.ObjectIdentifier && type.valueBlock.toString() !== OID.signedData) {
      throw new Asn1Error('the PKCS#7 content is not SignedData');
    }
    return new pkijs.ContentInfo({ schema });
  });
  if (contentInfo.contentType !== OID.signedData) throw new Asn1Error('the PKCS#7 content is not SignedData');
  const signed = decode('the SignedData', () => new pkijs.SignedData({ schema: contentInfo.content }));
  const { eContentType, eContent } = signed.encapContentInfo;
  if (!eContent) throw new Asn1Error('the signed content is detached; an attested document carries it');
  if (signed.signerInfos.length !== 1) throw new Asn1Error(`the PKCS#7 has ${signed.signerInfos.length} signers; exactly one is expected`);
  const certificates = (signed.certificates ?? []).flatMap((certificate) => {
    if (!(certificate instanceof pkijs.Certificate)) return [];
    try {
      return [new X509Certificate(Buffer.from(certificate.toSchema().toBER()))];
    } catch {
      throw new Asn1Error('a certificate in the PKCS#7 does not parse');
    }
  });
  return {
    contentType: eContentType,
    content: octets(eContent),
    certificates,
    signer: signerInfo(signed.signerInfos[0] as pkijs.SignerInfo),
  };
}

function signerInfo(info: pkijs.SignerInfo): SignerInfo {
  let sid: SignerInfo['sid'];
  if (info.sid instanceof pkijs.IssuerAndSerialNumber) {
    sid = { issuer: Buffer.from(info.sid.issuer.toSchema().toBER()), serialNumber: integerBytes(info.sid.serialNumber) };
  } else {
    // [0] IMPLICIT SubjectKeyIdentifier: the octets travel under the context tag.
    const block = (info.sid as asn1js.Primitive).valueBlock as { valueHexView?: Uint8Array } | undefined;
    if (!block?.valueHexView) throw new Asn1Error('the signer identifier is malformed');
    sid = { subjectKeyIdentifier: Buffer.from(block.valueHexView) };
  }
  let signedAttributes: SignerInfo['signedAttributes'];
  if (info.signedAttrs) {
    // What was signed is the DER of the attributes as a SET OF, not the [0] IMPLICIT tag they travel under.
    const der = Buffer.from(info.signedAttrs.encodedValue);
    der[0] = 0x31;
    const seen = new Set<string>();
    const messageDigests: Buffer[] = [];
    let contentType: string | undefined;
    for (const attribute of info.signedAttrs.attributes) {
      if (seen.has(attribute.type)) throw new Asn1Error(`the signed attribute ${attribute.type} appears twice`);
      seen.add(attribute.type);
      if (attribute.type === OID.messageDigest) messageDigests.push(...attribute.values.map((value) => octets(value)));
      if (attribute.type === OID.contentType) {
        const [value] = attribute.values;
        if (!(value instanceof asn1js.ObjectIdentifier)) throw new Asn1Error('the content type attribute is not an object identifier');
        contentType = value.valueBlock.toString();
      }
    }
    signedAttributes = { der, messageDigests, contentType };
  }
  return {
    sid,
    digestAlgorithm: info.digestAlgorithm.algorithmId,
    signedAttributes,
    signatureAlgorithm: info.signatureAlgorithm.algorithmId,
    signature: octets(info.signature),
  };
}

/** Reads the serial number, issuer, subject CNs and subject key identifier of a certificate. */
export function certificateFields(certificate: X509Certificate): CertificateFields {
  const parsed = fromSchema('the certificate', certificate.raw, (schema) => new pkijs.Certificate({ schema }));
  const extension = parsed.extensions?.find((candidate) => candidate.extnID === OID.subjectKeyIdentifier);
  return {
    serialNumber: integerBytes(parsed.serialNumber),
    issuer: Buffer.from(parsed.issuer.toSchema().toBER()),
    subjectCommonNames: parsed.subject.typesAndValues
      .filter((attribute) => attribute.type === OID.commonName)
      .map((attribute) => String(attribute.value.valueBlock.value)),
    subjectKeyIdentifier: extension ? octets(asn1js.fromBER(extension.extnValue.valueBlock.valueHexView).result) : undefined,
  };
}

/** Decodes BER and builds a pkijs object from it; anything left over after the structure is refused. */
function fromSchema<T>(what: string, bytes: Uint8Array, build: (schema: asn1js.AsnType) => T): T {
  // Hostile nesting could exhaust the stack inside the decoder: that is malformed input too.
  const decoded = decode(what, () => asn1js.fromBER(bytes));
  if (decoded.offset === -1) throw new Asn1Error(`${what} is not valid BER: ${decoded.result.error}`);
  if (decoded.offset !== bytes.length) throw new Asn1Error(`${what} has ${bytes.length - decoded.offset} bytes after it`);
  return decode(what, () => build(decoded.result));
}

function decode<T>(what: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof Asn1Error) throw error;
    throw new Asn1Error(`${what} is malformed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** An OCTET STRING's bytes, primitive or constructed (BER splits long ones into pieces). */
function octets(value: unknown): Buffer {
  if (!(value instanceof asn1js.OctetString)) throw new Asn1Error('an octet string was expected');
  if (!value.idBlock.isConstructed) return Buffer.from(value.valueBlock.valueHexView);
  return Buffer.concat(value.valueBlock.value.map((piece) => octets(piece)));
}

/** An INTEGER's bytes as encoded. */
function integerBytes(value: asn1js.Integer): Buffer {
  return Buffer.from(value.valueBlock.valueHexView);
}
