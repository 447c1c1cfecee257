import { createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { parsePemCertificates } from './certificates.js';
import { IdentityRejected, reject } from './identity-error.js';

/** A key that may sign Google identity tokens, with its key id when the source names one. */
export interface GoogleKey {
  readonly kid: string | undefined;
  readonly key: KeyObject;
}

/**
 * Reads the keys that sign Google identity tokens from one of the forms Google publishes them in:
 * a JWKS document (`{"keys": [...]}`, as at oauth2/v3/certs), a JSON map of key id to PEM
 * certificate (as at oauth2/v1/certs), or a PEM bundle of certificates (no key ids). Throws on
 * anything else, or when it holds no RSA key.
 */
export function parseGoogleKeys(text: string): GoogleKey[] {
  const trimmed = text.trim();
  let keys: GoogleKey[];
  if (trimmed.startsWith('{')) {
    const parsed = JSON.parse(trimmed) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('the JSON is not an object');
    const document = parsed as Record<string, unknown>;
    if (Array.isArray(document['keys'])) {
      keys = document['keys'].flatMap((entry: unknown, index) => {
        const jwk = entry as JsonWebKey & { kid?: unknown; use?: unknown };
        if (typeof jwk !== 'object' || jwk === null) throw new Error(`key ${index + 1} of the JWKS is not an object`);
        if (jwk.kty !== 'RSA' || (jwk.use !== undefined && jwk.use !== 'sig')) return [];
        try {
          return [{ kid: typeof jwk.kid === 'string' ? jwk.kid : undefined, key: createPublicKey({ key: jwk, format: 'jwk' }) }];
        } catch (error) {
          throw new Error(`key ${index + 1} of the JWKS does not parse: ${(error as Error).message}`);
        }
      });
    } else {
      keys = Object.entries(document).map(([kid, pem]) => {
        const [certificate] = typeof pem === 'string' ? parsePemCertificates(pem) : [];
        if (!certificate) throw new Error(`the entry "${kid}" is not a PEM certificate`);
        return { kid, key: certificate.publicKey };
      });
    }
  } else {
    keys = parsePemCertificates(text).map((certificate) => ({ kid: undefined, key: certificate.publicKey }));
  }
  const rsa = keys.filter((entry) => entry.key.asymmetricKeyType === 'rsa');
  if (rsa.length === 0)
    throw new Error('it holds no RSA keys (a PEM bundle of certificates, a JWKS, or a JSON map of key id to PEM certificate)');
  return rsa;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function decodePart(part: string, what: string): Buffer {
  if (!BASE64URL.test(part)) reject(`the token's ${what} is not base64url`);
  return Buffer.from(part, 'base64url');
}

function decodeJson(part: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decodePart(part, what).toString('utf8'));
  } catch (error) {
    if (error instanceof IdentityRejected) throw error;
    reject(`the token's ${what} is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) reject(`the token's ${what} is not a JSON object`);
  return parsed as Record<string, unknown>;
}

/**
 * Checks a GCE instance identity token (a JWT signed RS256 by Google) and returns the claim
 * `google.compute_engine.instance_id`. The key is chosen by `kid` when the token names one that is
 * known, else every key without an id is tried. `exp` must be after `now`; the audience is not
 * checked, as the reference does not. Throws IdentityRejected: `invalid` for a bad token,
 * `claims` for a good one without a readable instance id.
 */
export function verifyGoogleIdentity(token: string, keys: readonly GoogleKey[], now: Date): string {
  if (keys.length === 0) reject('no Google keys are trusted');
  const parts = token.split('.');
  if (parts.length !== 3) reject('the token is not a JWT (three dot-separated parts)');
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = decodeJson(headerPart, 'header');
  if (header['alg'] !== 'RS256') reject(`the token is signed with ${JSON.stringify(header['alg'])}; RS256 is expected`);
  const kid = typeof header['kid'] === 'string' ? header['kid'] : undefined;
  const payload = decodeJson(payloadPart, 'payload');
  const signature = decodePart(signaturePart, 'signature');
  const named = kid === undefined ? [] : keys.filter((entry) => entry.kid === kid);
  const candidates = kid === undefined ? keys : named.length > 0 ? named : keys.filter((entry) => entry.kid === undefined);
  const signed = Buffer.from(`${headerPart}.${payloadPart}`, 'ascii');
  const holds = candidates.some((entry) => {
    try {
      return verify('sha256', signed, entry.key, signature);
    } catch {
      return false;
    }
  });
  if (!holds)
    reject(
      kid !== undefined && candidates.length === 0 ? `no trusted key has the id "${kid}"` : 'the signature does not match any trusted key',
    );
  const exp = payload['exp'];
  if (typeof exp !== 'number' || !Number.isFinite(exp)) reject('the token has no expiry (exp)');
  if (now.getTime() / 1000 > exp) reject(`the token expired at ${new Date(exp * 1000).toISOString()}`);
  const google = payload['google'];
  const computeEngine = typeof google === 'object' && google !== null ? (google as Record<string, unknown>)['compute_engine'] : undefined;
  const instanceId =
    typeof computeEngine === 'object' && computeEngine !== null ? (computeEngine as Record<string, unknown>)['instance_id'] : undefined;
  if (typeof instanceId !== 'string' || instanceId === '') {
    throw new IdentityRejected(
      'claims',
      'the claim google.compute_engine.instance_id is missing or not a string; request the token with format=full from an instance',
    );
  }
  return instanceId;
}
