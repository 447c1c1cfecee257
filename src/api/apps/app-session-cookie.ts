import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The session of a subdomain app host (reference §6.2). The deployment hands an app host an API
 * key of scope `application_connect` in a query parameter, encrypted so that it is useless outside
 * that host and after a minute; the host turns it into its own HttpOnly cookie.
 */

/** The cookie an app host keeps its session in; set for that host only. */
export const APP_SESSION_COOKIE = 'cove_subdomain_app_session_token';
/** The query parameter that carries the encrypted key from the deployment to the app host. */
export const APP_CONNECT_PARAM = 'cove_application_connect_api_key';
/** How long an encrypted key may travel before the app host refuses it. */
export const APP_CONNECT_KEY_TTL_MS = 60_000;

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const AAD = Buffer.from('cove application connect api key v1');

interface Payload {
  /** The API key (`id-secret`). */
  readonly t: string;
  /** The app host it is for, lower case, without a port. */
  readonly h: string;
  /** When it stops being accepted, in ms since the epoch. */
  readonly e: number;
}

/** AES-256-GCM key derived from the deployment's signing key, for this purpose only. */
function cipherKey(signingKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', signingKey, Buffer.alloc(0), 'cove/application-connect-key', 32));
}

/** Encrypts an API key for one app host: base64url of version, IV, tag and ciphertext. */
export function encryptAppConnectKey(signingKey: Buffer, token: string, host: string, now: Date): string {
  const payload: Payload = { t: token, h: normalHost(host), e: now.getTime() + APP_CONNECT_KEY_TTL_MS };
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', cipherKey(signingKey), iv);
  cipher.setAAD(AAD);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The API key in an encrypted parameter, if it is genuine, for `host`, and not expired. */
export function decryptAppConnectKey(signingKey: Buffer, text: string, host: string, now: Date): string | undefined {
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length <= 1 + IV_BYTES + TAG_BYTES || bytes[0] !== VERSION) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', cipherKey(signingKey), bytes.subarray(1, 1 + IV_BYTES));
    decipher.setAAD(AAD);
    decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
    const plain = Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    const payload = JSON.parse(plain) as Partial<Payload>;
    if (typeof payload.t !== 'string' || payload.h !== normalHost(host) || typeof payload.e !== 'number' || payload.e <= now.getTime())
      return undefined;
    return payload.t;
  } catch {
    return undefined;
  }
}

function normalHost(host: string): string {
  return host.toLowerCase().replace(/:\d+$/, '');
}

/** The `Set-Cookie` value that gives an app host its session. */
export function appSessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  const attributes = [
    'Path=/',
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ];
  return `${APP_SESSION_COOKIE}=${token}; ${attributes.join('; ')}`;
}

/** A `Cookie` header without the named cookies; undefined when nothing is left. */
export function withoutCookies(header: string | undefined, names: readonly string[]): string | undefined {
  if (!header) return undefined;
  const kept = header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !names.includes(part.split('=')[0]?.trim() ?? ''));
  return kept.length > 0 ? kept.join('; ') : undefined;
}
