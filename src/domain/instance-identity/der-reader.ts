/**
 * A small reader of ASN.1 DER (and the BER that PKCS#7 producers sometimes emit: indefinite
 * lengths and constructed strings), enough for certificates and PKCS#7 SignedData. It reads what
 * it is given and refuses anything malformed with a DerError; it never trusts a length without
 * checking it against the bytes that are there.
 */

/** Malformed or unexpected ASN.1. */
export class DerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DerError';
  }
}

export type TagClass = 'universal' | 'application' | 'context' | 'private';

/** Universal tag numbers this code reads. */
export const UNIVERSAL = {
  BOOLEAN: 1,
  INTEGER: 2,
  BIT_STRING: 3,
  OCTET_STRING: 4,
  NULL: 5,
  OID: 6,
  UTF8_STRING: 12,
  SEQUENCE: 16,
  SET: 17,
  PRINTABLE_STRING: 19,
  T61_STRING: 20,
  IA5_STRING: 22,
  UTC_TIME: 23,
  GENERALIZED_TIME: 24,
  UNIVERSAL_STRING: 28,
  BMP_STRING: 30,
} as const;

/** One element: its tag, its encoding as given (`raw`) and its contents. */
export interface DerNode {
  readonly tagClass: TagClass;
  readonly constructed: boolean;
  /** The tag number (only low tag numbers, below 31, are accepted). */
  readonly tagNumber: number;
  /** Whether the length was indefinite (BER); DER never is. */
  readonly indefinite: boolean;
  /** The whole element: identifier, length and contents (and the end-of-contents octets if indefinite). */
  readonly raw: Buffer;
  /** The contents octets (for indefinite lengths, without the end-of-contents octets). */
  readonly contents: Buffer;
  /** The elements inside a constructed element, in order; empty for a primitive one. */
  readonly children: readonly DerNode[];
}

/** Deeper than any certificate or PKCS#7 nests; stops hostile input from exhausting the stack. */
const MAX_DEPTH = 64;
const CLASSES: readonly TagClass[] = ['universal', 'application', 'context', 'private'];

/** Reads exactly one element that spans all of `bytes`. */
export function readDer(bytes: Buffer): DerNode {
  const { node, end } = readElement(bytes, 0, bytes.length, 0);
  if (end !== bytes.length) throw new DerError(`${bytes.length - end} bytes follow the outermost element`);
  return node;
}

function readElement(bytes: Buffer, start: number, limit: number, depth: number): { node: DerNode; end: number } {
  if (depth > MAX_DEPTH) throw new DerError('the elements nest too deeply');
  if (start >= limit) throw new DerError('an element is cut short');
  const identifier = bytes[start] as number;
  const tagNumber = identifier & 0x1f;
  if (tagNumber === 0x1f) throw new DerError('high tag numbers are not supported');
  const tagClass = CLASSES[identifier >> 6] as TagClass;
  const constructed = (identifier & 0x20) !== 0;
  let offset = start + 1;
  if (offset >= limit) throw new DerError('an element has no length');
  const first = bytes[offset++] as number;

  if (first === 0x80) {
    // Indefinite length (BER): constructed only, children until the end-of-contents octets.
    if (!constructed) throw new DerError('a primitive element has an indefinite length');
    const children: DerNode[] = [];
    const contentsStart = offset;
    for (;;) {
      if (offset + 2 > limit) throw new DerError('an indefinite-length element has no end');
      if (bytes[offset] === 0 && bytes[offset + 1] === 0) break;
      const child = readElement(bytes, offset, limit, depth + 1);
      children.push(child.node);
      offset = child.end;
    }
    const end = offset + 2;
    return {
      node: {
        tagClass,
        constructed,
        tagNumber,
        indefinite: true,
        raw: bytes.subarray(start, end),
        contents: bytes.subarray(contentsStart, offset),
        children,
      },
      end,
    };
  }

  let length: number;
  if (first < 0x80) {
    length = first;
  } else {
    const count = first & 0x7f;
    if (count > 4) throw new DerError('an element is longer than this reader accepts');
    if (offset + count > limit) throw new DerError('a length is cut short');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (bytes[offset++] as number);
  }
  const contentsStart = offset;
  const end = contentsStart + length;
  if (end > limit) throw new DerError('an element is longer than what contains it');
  const contents = bytes.subarray(contentsStart, end);
  const children: DerNode[] = [];
  if (constructed) {
    let at = contentsStart;
    while (at < end) {
      const child = readElement(bytes, at, end, depth + 1);
      children.push(child.node);
      at = child.end;
    }
  }
  return { node: { tagClass, constructed, tagNumber, indefinite: false, raw: bytes.subarray(start, end), contents, children }, end };
}

/** Whether `node` is the universal element with this tag number. */
export function isUniversal(node: DerNode | undefined, tagNumber: number): node is DerNode {
  return node !== undefined && node.tagClass === 'universal' && node.tagNumber === tagNumber;
}

/** Whether `node` is the context-specific element `[tagNumber]`. */
export function isContext(node: DerNode | undefined, tagNumber: number): node is DerNode {
  return node !== undefined && node.tagClass === 'context' && node.tagNumber === tagNumber;
}

/** `node`, which must be the universal element `tagNumber`; `what` names it in the error. */
export function expectUniversal(node: DerNode | undefined, tagNumber: number, what: string): DerNode {
  if (!isUniversal(node, tagNumber)) throw new DerError(`${what} is missing or of the wrong type`);
  if ((tagNumber === UNIVERSAL.SEQUENCE || tagNumber === UNIVERSAL.SET) && !node.constructed)
    throw new DerError(`${what} is not constructed`);
  return node;
}

/** The children of a SEQUENCE. */
export function sequence(node: DerNode | undefined, what: string): readonly DerNode[] {
  return expectUniversal(node, UNIVERSAL.SEQUENCE, what).children;
}

/** An OBJECT IDENTIFIER in dotted form. */
export function readOid(node: DerNode | undefined, what: string): string {
  const oid = expectUniversal(node, UNIVERSAL.OID, what);
  if (oid.constructed || oid.contents.length === 0) throw new DerError(`${what} is not a valid object identifier`);
  const arcs: number[] = [];
  let value = 0;
  for (const [index, byte] of oid.contents.entries()) {
    if (value === 0 && byte === 0x80) throw new DerError(`${what} is not a valid object identifier`);
    value = value * 128 + (byte & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER / 128) throw new DerError(`${what} has an arc too large`);
    if ((byte & 0x80) === 0) {
      arcs.push(value);
      value = 0;
    } else if (index === oid.contents.length - 1) {
      throw new DerError(`${what} is cut short`);
    }
  }
  const first = arcs[0] as number;
  const head = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80];
  return [...head, ...arcs.slice(1)].join('.');
}

/** The contents of an OCTET STRING; a constructed one (BER) is the concatenation of its parts. */
export function readOctets(node: DerNode | undefined, what: string): Buffer {
  const octets = expectUniversal(node, UNIVERSAL.OCTET_STRING, what);
  if (!octets.constructed) return octets.contents;
  return Buffer.concat(octets.children.map((child) => readOctets(child, what)));
}

/** The contents of an INTEGER, as its two's-complement bytes (serial numbers compare this way). */
export function readIntegerBytes(node: DerNode | undefined, what: string): Buffer {
  const integer = expectUniversal(node, UNIVERSAL.INTEGER, what);
  if (integer.constructed || integer.contents.length === 0) throw new DerError(`${what} is not a valid integer`);
  return integer.contents;
}

/** The text of a directory string (UTF8String, PrintableString, IA5String, T61String, BMPString, UniversalString). */
export function readString(node: DerNode | undefined, what: string): string {
  if (!node || node.tagClass !== 'universal' || node.constructed) throw new DerError(`${what} is not a string`);
  switch (node.tagNumber) {
    case UNIVERSAL.UTF8_STRING:
      return node.contents.toString('utf8');
    case UNIVERSAL.PRINTABLE_STRING:
    case UNIVERSAL.IA5_STRING:
      return node.contents.toString('ascii');
    case UNIVERSAL.T61_STRING:
      return node.contents.toString('latin1');
    case UNIVERSAL.BMP_STRING: {
      if (node.contents.length % 2 !== 0) throw new DerError(`${what} is not a valid BMPString`);
      const swapped = Buffer.from(node.contents);
      swapped.swap16();
      return swapped.toString('utf16le');
    }
    case UNIVERSAL.UNIVERSAL_STRING: {
      if (node.contents.length % 4 !== 0) throw new DerError(`${what} is not a valid UniversalString`);
      const points: number[] = [];
      for (let i = 0; i < node.contents.length; i += 4) points.push(node.contents.readUInt32BE(i));
      return String.fromCodePoint(...points);
    }
    default:
      throw new DerError(`${what} is not a string`);
  }
}

/** Object identifiers this code reads. */
export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  commonName: '2.5.4.3',
  subjectKeyIdentifier: '2.5.29.14',
} as const;
