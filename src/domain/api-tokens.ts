import { createHash, timingSafeEqual } from 'node:crypto';
import { randomAlphanumeric } from '../lib/random.js';

const ID_LENGTH = 10;
const SECRET_LENGTH = 22;

/** A freshly minted token: the string handed to the client once, and what the store keeps. */
export interface MintedToken {
  readonly token: string;
  readonly id: string;
  readonly hashedSecret: string;
}

/** Mints `<10-char id>-<22-char secret>`; only the SHA-256 of the secret is ever stored. */
export function mintToken(): MintedToken {
  const id = randomAlphanumeric(ID_LENGTH);
  const secret = randomAlphanumeric(SECRET_LENGTH);
  return { token: `${id}-${secret}`, id, hashedSecret: hashSecret(secret) };
}

/** The stored form of a token secret. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A token split into its parts, or the reason it is malformed. */
export type ParsedToken =
  { readonly ok: true; readonly id: string; readonly secret: string } | { readonly ok: false; readonly detail: string };

/** Splits a presented token, saying precisely what is wrong with a malformed one. */
export function parseToken(token: string): ParsedToken {
  const dash = token.indexOf('-');
  if (dash === ID_LENGTH && token.length === ID_LENGTH + 1 + SECRET_LENGTH && token.indexOf('-', dash + 1) === -1) {
    return { ok: true, id: token.slice(0, dash), secret: token.slice(dash + 1) };
  }
  const parts = token.split('-');
  if (parts.length !== 2) {
    return { ok: false, detail: `Invalid API key format: incorrect amount of API key parts, expected 2 got ${parts.length}` };
  }
  const [id = '', secret = ''] = parts;
  if (id.length !== ID_LENGTH) {
    return { ok: false, detail: `Invalid API key format: invalid API key ID length, expected ${ID_LENGTH} got ${id.length}` };
  }
  if (secret.length !== SECRET_LENGTH) {
    return {
      ok: false,
      detail: `Invalid API key format: invalid API key secret length, expected ${SECRET_LENGTH} got ${secret.length}`,
    };
  }
  return { ok: true, id, secret };
}

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(secret: string, hashedSecret: string): boolean {
  const actual = Buffer.from(hashSecret(secret), 'hex');
  const expected = Buffer.from(hashedSecret, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
