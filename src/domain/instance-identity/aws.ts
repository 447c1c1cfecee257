import { constants, verify, type KeyObject } from 'node:crypto';
import { reject } from './identity-error.js';

/** What an EC2 agent posts: the identity document as fetched (raw JSON text) and its base64 signature. */
export interface AwsIdentity {
  readonly document: string;
  readonly signature: string;
}

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/**
 * Checks an EC2 instance identity document against the trusted AWS certificates' keys and returns
 * its `instanceId`. The signature is RSA PKCS#1 v1.5 with SHA-256 over the document's bytes;
 * every key is tried, so the instance's region need not be known. Throws IdentityRejected.
 */
export function verifyAwsIdentity(identity: AwsIdentity, keys: readonly KeyObject[]): string {
  if (keys.length === 0) reject('no AWS certificates are trusted');
  if (!BASE64.test(identity.signature)) reject('the signature is not base64');
  const signature = Buffer.from(identity.signature, 'base64');
  if (signature.length === 0) reject('the signature is empty');
  const document = Buffer.from(identity.document, 'utf8');
  const signed = keys.some((key) => {
    if (key.asymmetricKeyType !== 'rsa') return false;
    try {
      return verify('sha256', document, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
    } catch {
      return false;
    }
  });
  if (!signed) reject(`the signature does not match the document under any of the ${keys.length} trusted AWS certificates`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(identity.document);
  } catch {
    reject('the document is not JSON');
  }
  const instanceId = (parsed as { instanceId?: unknown } | null)?.instanceId;
  if (typeof instanceId !== 'string' || instanceId === '') reject('the document has no instanceId');
  return instanceId;
}
