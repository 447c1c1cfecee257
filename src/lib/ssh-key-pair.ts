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

/** A new ed25519 key pair, encoded for OpenSSH without any dependency beyond node:crypto. */
export function generateEd25519KeyPair(): SshKeyPair {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  if (!jwk.d || !jwk.x) throw new Error('node:crypto exported an ed25519 key without its raw halves');
  const seed = Buffer.from(jwk.d, 'base64url');
  const publicKey = Buffer.from(jwk.x, 'base64url');
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
