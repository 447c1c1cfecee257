/**
 * Cloud identity proofs signed with keys the tests make: a small DER writer, X.509 certificates,
 * PKCS#7 SignedData (as Azure's attested document), EC2-style signed documents and GCE-style JWTs.
 * Nothing here is trusted by the daemon unless a test writes it to a trust file.
 */
import { createHash, generateKeyPairSync, sign, X509Certificate, type KeyObject } from 'node:crypto';

// DER writer

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One element: identifier octet, length, contents. */
export function tlv(identifier: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([identifier]), encodeLength(body.length), body]);
}

export const der = {
  seq: (...children: Buffer[]) => tlv(0x30, ...children),
  set: (...children: Buffer[]) => tlv(0x31, ...children),
  /** A SET OF in DER order: its elements sorted by their encodings. */
  setOf: (...children: Buffer[]) => tlv(0x31, ...[...children].sort(Buffer.compare)),
  null: () => Buffer.from([0x05, 0x00]),
  bool: (value: boolean) => tlv(0x01, Buffer.from([value ? 0xff : 0x00])),
  octets: (bytes: Buffer) => tlv(0x04, bytes),
  utf8: (text: string) => tlv(0x0c, Buffer.from(text, 'utf8')),
  printable: (text: string) => tlv(0x13, Buffer.from(text, 'ascii')),
  bitString: (bytes: Buffer) => tlv(0x03, Buffer.from([0]), bytes),
  /** [n] EXPLICIT (constructed). */
  explicit: (n: number, ...children: Buffer[]) => tlv(0xa0 | n, ...children),
  integer(value: number | bigint | Buffer): Buffer {
    let bytes: Buffer;
    if (Buffer.isBuffer(value)) {
      bytes = value;
    } else {
      let hex = BigInt(value).toString(16);
      if (hex.length % 2) hex = `0${hex}`;
      bytes = Buffer.from(hex, 'hex');
    }
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0 && ((bytes[start + 1] ?? 0) & 0x80) === 0) start++;
    bytes = bytes.subarray(start);
    if (((bytes[0] ?? 0) & 0x80) !== 0) bytes = Buffer.concat([Buffer.from([0]), bytes]);
    return tlv(0x02, bytes);
  },
  oid(dotted: string): Buffer {
    const arcs = dotted.split('.').map(Number);
    const out: number[] = [];
    const push = (value: number) => {
      const groups = [value & 0x7f];
      for (let rest = Math.floor(value / 128); rest > 0; rest = Math.floor(rest / 128)) groups.unshift((rest & 0x7f) | 0x80);
      out.push(...groups);
    };
    push((arcs[0] ?? 0) * 40 + (arcs[1] ?? 0));
    for (const arc of arcs.slice(2)) push(arc);
    return tlv(0x06, Buffer.from(out));
  },
  time(date: Date): Buffer {
    const iso = date
      .toISOString()
      .replace(/\.\d{3}/, '')
      .replace(/[-:T]/g, '');
    // UTCTime before 2050, GeneralizedTime after, as RFC 5280 says.
    return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2), 'ascii')) : tlv(0x18, Buffer.from(iso, 'ascii'));
  },
};

export const OIDS = {
  sha256WithRSA: '1.2.840.113549.1.1.11',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha256: '2.16.840.1.101.3.4.2.1',
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  basicConstraints: '2.5.29.19',
  subjectKeyIdentifier: '2.5.29.14',
} as const;

const algorithm = (oid: string) => der.seq(der.oid(oid), der.null());

/** A Name with an organization and a common name. */
export function name(commonName: string): Buffer {
  return der.seq(
    der.set(der.seq(der.oid(OIDS.organization), der.utf8('Cove Tests'))),
    der.set(der.seq(der.oid(OIDS.commonName), der.utf8(commonName))),
  );
}

// Certificates

export interface TestKeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

export function rsaKeyPair(): TestKeyPair {
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

export interface TestCertificate extends TestKeyPair {
  readonly der: Buffer;
  readonly pem: string;
  readonly x509: X509Certificate;
  readonly subject: Buffer;
  readonly issuer: Buffer;
  readonly serial: Buffer;
  readonly subjectKeyIdentifier: Buffer;
}

let serialCounter = 0x1000;

/**
 * A certificate for a new key (or `keys`), signed by `issuer` (self-signed without one). Valid
 * from 2025 to 2035 unless told otherwise; a CA when `ca` is set.
 */
export function makeCertificate(options: {
  readonly commonName: string;
  readonly issuer?: TestCertificate;
  readonly ca?: boolean;
  readonly notBefore?: Date;
  readonly notAfter?: Date;
  readonly keys?: TestKeyPair;
}): TestCertificate {
  const keys = options.keys ?? rsaKeyPair();
  const subject = name(options.commonName);
  const serial = Buffer.from((serialCounter++).toString(16).padStart(8, '0'), 'hex');
  const spki = keys.publicKey.export({ type: 'spki', format: 'der' });
  const subjectKeyIdentifier = createHash('sha1').update(spki).digest();
  const extensions = [
    der.seq(der.oid(OIDS.basicConstraints), der.bool(true), der.octets(options.ca ? der.seq(der.bool(true)) : der.seq())),
    der.seq(der.oid(OIDS.subjectKeyIdentifier), der.octets(der.octets(subjectKeyIdentifier))),
  ];
  const tbs = der.seq(
    der.explicit(0, der.integer(2)),
    der.integer(serial),
    algorithm(OIDS.sha256WithRSA),
    options.issuer?.subject ?? subject,
    der.seq(
      der.time(options.notBefore ?? new Date('2025-01-01T00:00:00Z')),
      der.time(options.notAfter ?? new Date('2035-01-01T00:00:00Z')),
    ),
    subject,
    spki,
    der.explicit(3, der.seq(...extensions)),
  );
  const signature = sign('sha256', tbs, options.issuer?.privateKey ?? keys.privateKey);
  const certificate = der.seq(tbs, algorithm(OIDS.sha256WithRSA), der.bitString(signature));
  const x509 = new X509Certificate(certificate);
  return {
    ...keys,
    der: certificate,
    pem: x509.toString(),
    x509,
    subject,
    issuer: options.issuer?.subject ?? subject,
    serial,
    subjectKeyIdentifier,
  };
}

/** A root, an intermediate it signed, and a leaf named `commonName` the intermediate signed. */
export function azureChain(commonName = 'metadata.azure.com'): {
  root: TestCertificate;
  intermediate: TestCertificate;
  leaf: TestCertificate;
} {
  const root = makeCertificate({ commonName: 'Cove Test Root', ca: true });
  const intermediate = makeCertificate({ commonName: 'Cove Test Intermediate', ca: true, issuer: root });
  const leaf = makeCertificate({ commonName, issuer: intermediate });
  return { root, intermediate, leaf };
}

// PKCS#7

/**
 * A PKCS#7 SignedData over `content`, signed by `signer`, carrying `certificates`, in base64 as
 * Azure's attested document has it. The options make it wrong in one way each.
 */
export function signPkcs7(
  content: string,
  signer: TestCertificate,
  certificates: readonly TestCertificate[],
  options: {
    readonly signedAttributes?: boolean;
    readonly sid?: 'issuer-serial' | 'subject-key-identifier';
    /** Sign with this key instead of the signer's. */
    readonly signingKey?: KeyObject;
    /** Sign one content and carry another. */
    readonly carriedContent?: string;
    /** The messageDigest attribute says this content's digest instead. */
    readonly digestOf?: string;
  } = {},
): string {
  const signedBytes = Buffer.from(content, 'utf8');
  const carried = Buffer.from(options.carriedContent ?? content, 'utf8');
  const withAttributes = options.signedAttributes ?? true;
  const sid =
    options.sid === 'subject-key-identifier' ? tlv(0x80, signer.subjectKeyIdentifier) : der.seq(signer.issuer, der.integer(signer.serial));
  const key = options.signingKey ?? signer.privateKey;
  let attributes: Buffer | undefined;
  let signature: Buffer;
  if (withAttributes) {
    const digest = createHash('sha256')
      .update(options.digestOf ?? signedBytes)
      .digest();
    const set = der.setOf(
      der.seq(der.oid(OIDS.contentType), der.set(der.oid(OIDS.data))),
      der.seq(der.oid(OIDS.signingTime), der.set(der.time(new Date('2026-01-05T10:00:00Z')))),
      der.seq(der.oid(OIDS.messageDigest), der.set(der.octets(digest))),
    );
    signature = sign('sha256', set, key);
    attributes = Buffer.from(set);
    attributes[0] = 0xa0;
  } else {
    signature = sign('sha256', signedBytes, key);
  }
  const signerInfo = der.seq(
    der.integer(options.sid === 'subject-key-identifier' ? 3 : 1),
    sid,
    algorithm(OIDS.sha256),
    ...(attributes ? [attributes] : []),
    algorithm(OIDS.rsaEncryption),
    der.octets(signature),
  );
  const signedData = der.seq(
    der.integer(1),
    der.set(algorithm(OIDS.sha256)),
    der.seq(der.oid(OIDS.data), der.explicit(0, der.octets(carried))),
    tlv(0xa0, ...certificates.map((certificate) => certificate.der)),
    der.set(signerInfo),
  );
  return der.seq(der.oid(OIDS.signedData), der.explicit(0, signedData)).toString('base64');
}

// AWS and Google

/** An EC2-style identity document and its base64 RSA-SHA256 signature. */
export function signAwsDocument(
  instanceId: string,
  key: KeyObject,
  extra: Record<string, unknown> = {},
): { document: string; signature: string } {
  const document = JSON.stringify({ accountId: '123456789012', region: 'eu-west-1', instanceId, ...extra }, null, 2);
  return { document, signature: sign('sha256', Buffer.from(document), key).toString('base64') };
}

/** A GCE-style identity token (RS256 JWT) for `instanceId`, expiring `exp` (seconds since the epoch). */
export function signGoogleToken(
  key: KeyObject,
  options: {
    readonly instanceId?: string | undefined;
    readonly exp: number;
    readonly kid?: string;
    readonly alg?: string;
    readonly claims?: Record<string, unknown>;
  },
): string {
  const header = { alg: options.alg ?? 'RS256', typ: 'JWT', ...(options.kid ? { kid: options.kid } : {}) };
  const payload = {
    iss: 'https://accounts.google.com',
    aud: 'cove',
    azp: '1234567890',
    iat: options.exp - 3600,
    exp: options.exp,
    ...(options.instanceId !== undefined
      ? { google: { compute_engine: { instance_id: options.instanceId, project_id: 'cove-tests', zone: 'europe-west1-b' } } }
      : {}),
    ...options.claims,
  };
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode(header)}.${encode(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

/** A JWKS document of public keys, each with its kid. */
export function jwks(keys: readonly { readonly kid: string; readonly publicKey: KeyObject }[]): string {
  return JSON.stringify({
    keys: keys.map(({ kid, publicKey }) => ({ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' })),
  });
}
