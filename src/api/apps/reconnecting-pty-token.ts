import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { presentedToken, SESSION_HEADER } from '../session-token.js';

/**
 * The signed token of the web terminal (`POST /applications/reconnecting-pty-signed-token`): the
 * caller's session, sealed for one agent's terminal socket and one minute, so that a page that
 * cannot attach the session (a socket to another host) still opens the terminal as that user.
 * Nothing can be done with it but open that socket: it is refused on every other path.
 */

/** The query parameter the reference's dashboard puts the token in, on the terminal socket only. */
export const SIGNED_PTY_TOKEN_PARAM = 'coder_signed_app_token_23db1dde';
/** How long a token opens the terminal, as long as the reference's app tokens. */
export const SIGNED_PTY_TOKEN_TTL_MS = 60_000;

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PTY_PATH = /^\/api\/v2\/workspaceagents\/([^/?]+)\/pty$/;

interface Payload {
  /** The session's API key (`id-secret`). */
  readonly t: string;
  /** When it stops being accepted, in ms since the epoch. */
  readonly e: number;
}

/** AES-256-GCM key derived from the deployment's signing key, for this purpose only. */
function cipherKey(signingKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', signingKey, Buffer.alloc(0), 'cove/reconnecting-pty-token', 32));
}

/** The additional data that binds a token to one agent's terminal. */
function boundTo(agentId: string): Buffer {
  return Buffer.from(`cove reconnecting pty v1 ${agentId.toLowerCase()}`);
}

/** Seals a session token for the terminal of `agentId`: base64url of version, IV, tag and ciphertext. */
export function issueSignedPtyToken(signingKey: Buffer, sessionToken: string, agentId: string, now: Date): string {
  const payload: Payload = { t: sessionToken, e: now.getTime() + SIGNED_PTY_TOKEN_TTL_MS };
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', cipherKey(signingKey), iv);
  cipher.setAAD(boundTo(agentId));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/**
 * The session sealed in the request's signed terminal token, when the request is for the terminal
 * socket of the agent the token was issued for and the token is genuine and unexpired.
 */
export function signedPtySession(signingKey: Buffer, request: FastifyRequest, now: Date): string | undefined {
  const [path = '', search = ''] = request.url.split('?', 2);
  const agentId = PTY_PATH.exec(path)?.[1];
  if (agentId === undefined) return undefined;
  const text = new URLSearchParams(search).get(SIGNED_PTY_TOKEN_PARAM);
  if (!text) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length <= 1 + IV_BYTES + TAG_BYTES || bytes[0] !== VERSION) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', cipherKey(signingKey), bytes.subarray(1, 1 + IV_BYTES));
    decipher.setAAD(boundTo(decodeURIComponent(agentId)));
    decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
    const plain = Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    const payload = JSON.parse(plain) as Partial<Payload>;
    if (typeof payload.t !== 'string' || typeof payload.e !== 'number' || payload.e <= now.getTime()) return undefined;
    return payload.t;
  } catch {
    return undefined;
  }
}

/**
 * Lets a terminal socket that presents no session but a signed token stand for the session it
 * seals: the token becomes the request's session header, so authentication, the origin check (a
 * token in the URL is no ambient cookie) and forwarding to another replica treat it as one.
 */
export function adoptSignedPtySession(signingKey: Buffer, request: FastifyRequest, now: Date): void {
  if (!request.url.includes(SIGNED_PTY_TOKEN_PARAM) || presentedToken(request) !== undefined) return;
  const session = signedPtySession(signingKey, request, now);
  if (session !== undefined) request.headers[SESSION_HEADER] = session;
}
