import { generateKeyPairSync, randomBytes } from 'node:crypto';

/** A key pair in the encodings OpenSSH reads: an authorized_keys line and a PEM private key. */
export interface SshKeyPair {
  /** `ssh-ed25519 AAAA...` with a trailing newline, as the reference stores it. */
  readonly publicKey: string;
  /** An unencrypted `openssh-key-v1` key in its `OPENSSH PRIVATE KEY` PEM block. */
  readonly privateKey: string;
}

const KEY_TYPE = 'ssh-ed25519';
/** The cipher block size of an unencrypted key; the private section is padded to it. */
const BLOCK_SIZE = 8;

/** A length-prefixed SSH wire string (RFC 4251 §5). */
function sshString(value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

/** The public key blob both encodings embed. */
function publicBlob(publicKey: Buffer): Buffer {
  return Buffer.concat([sshString(KEY_TYPE), sshString(publicKey)]);
}

/** The private section of an `openssh-key-v1` file (PROTOCOL.key in the OpenSSH sources). */
function privateSection(seed: Buffer, publicKey: Buffer): Buffer {
  // The repeated random check word is how ssh-keygen tells a wrong passphrase; unencrypted keys carry it too.
  const check = randomBytes(4);
  const body = Buffer.concat([
    check,
    check,
    sshString(KEY_TYPE),
    sshString(publicKey),
    sshString(Buffer.concat([seed, publicKey])),
    sshString(''),
  ]);
  const padLength = (BLOCK_SIZE - (body.length % BLOCK_SIZE)) % BLOCK_SIZE;
  const padding = Buffer.from(Array.from({ length: padLength }, (_, index) => index + 1));
  return Buffer.concat([body, padding]);
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** DER prefixes of an ed25519 key in PKCS #8 and in SubjectPublicKeyInfo (RFC 8410); the raw 32 bytes follow. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The 32 raw bytes after `prefix` in a DER encoding of an ed25519 key. */
function rawKeyBytes(der: Buffer, prefix: Buffer, what: string): Buffer {
  if (der.length !== prefix.length + 32 || !der.subarray(0, prefix.length).equals(prefix)) {
    throw new Error(`node:crypto encoded an ed25519 ${what} in an unexpected form`);
  }
  return der.subarray(prefix.length);
}

/**
 * A new ed25519 key pair, encoded for OpenSSH without any dependency beyond node:crypto.
 *
 * The key is encoded by the generation itself rather than exported from the KeyObject afterwards:
 * on Node 20, exporting a just-generated key as a JWK can deadlock, when a garbage collection during
 * the export finalizes the generation job, whose teardown takes the lock the export holds.
 */
export function generateEd25519KeyPair(): SshKeyPair {
  const generated = generateKeyPairSync('ed25519', {
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
    publicKeyEncoding: { type: 'spki', format: 'der' },
  });
  const seed = rawKeyBytes(generated.privateKey, PKCS8_ED25519_PREFIX, 'private key');
  const publicKey = rawKeyBytes(generated.publicKey, SPKI_ED25519_PREFIX, 'public key');
  const blob = publicBlob(publicKey);
  const file = Buffer.concat([
    Buffer.from('openssh-key-v1\0'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(blob),
    sshString(privateSection(seed, publicKey)),
  ]);
  return { publicKey: `${KEY_TYPE} ${blob.toString('base64')}\n`, privateKey: pem('OPENSSH PRIVATE KEY', file) };
}
