import { pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

const ITERATIONS = 65_535;
const KEY_LENGTH = 64;
const MIN_ENTROPY_BITS = 52;
const MAX_LENGTH = 64;

const REPLACE_CHARS = '!@$&*';
const SEPARATOR_CHARS = '_-., ';
const OTHER_SPECIAL_CHARS = '"#%\'()+/:;<=>?[\\]^{|}~';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';

const GROUPS: readonly { readonly chars: string; readonly size: number }[] = [
  { chars: REPLACE_CHARS, size: 5 },
  { chars: SEPARATOR_CHARS, size: 5 },
  { chars: OTHER_SPECIAL_CHARS, size: 22 },
  { chars: LOWER, size: 26 },
  { chars: UPPER, size: 26 },
  { chars: DIGITS, size: 10 },
];

/**
 * Estimated entropy in bits: the length, counting each distinct character at most twice, times
 * log2 of the size of the character groups in use (each character outside the groups adds one).
 */
export function passwordEntropy(password: string): number {
  const chars = [...password];
  const seen = new Map<string, number>();
  let effectiveLength = 0;
  for (const ch of chars) {
    const count = seen.get(ch) ?? 0;
    if (count < 2) effectiveLength += 1;
    seen.set(ch, count + 1);
  }
  let base = 0;
  for (const group of GROUPS) if (chars.some((ch) => group.chars.includes(ch))) base += group.size;
  for (const ch of seen.keys()) if (!GROUPS.some((group) => group.chars.includes(ch))) base += 1;
  return base === 0 ? 0 : effectiveLength * Math.log2(base);
}

/**
 * Checks a password against the strength rules. Returns undefined when it is acceptable, else a
 * message that says what would make it stronger (it never echoes the password).
 */
export function passwordWeakness(password: string): string | undefined {
  if (passwordEntropy(password) < MIN_ENTROPY_BITS) {
    const has = (set: string) => [...password].some((ch) => set.includes(ch));
    const hints: string[] = [];
    if (!has(REPLACE_CHARS) || !has(SEPARATOR_CHARS) || !has(OTHER_SPECIAL_CHARS)) hints.push('including more special characters');
    if (!has(LOWER)) hints.push('using lowercase letters');
    if (!has(UPPER)) hints.push('using uppercase letters');
    if (!has(DIGITS)) hints.push('using numbers');
    return hints.length === 0
      ? 'insecure password, try using a longer password'
      : `insecure password, try ${hints.join(', ')} or using a longer password`;
  }
  if ([...password].length > MAX_LENGTH) return `password must be no more than ${MAX_LENGTH} characters`;
  return undefined;
}

/**
 * A random password for an account made from the command line: 24 characters of URL-safe base64
 * (144 random bits), far above the strength rules and short enough to type.
 */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

/** Hashes a password (or a one-time passcode) with PBKDF2-HMAC-SHA256 and a random salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await pbkdf2Async(password, salt, ITERATIONS, KEY_LENGTH, 'sha256');
  return `$pbkdf2-sha256$${ITERATIONS}$${unpadded(salt)}$${unpadded(hash)}`;
}

// Compared against when a user has no stored hash, so a miss takes as long as a hit.
const DUMMY_HASH = `$pbkdf2-sha256$${ITERATIONS}$${'A'.repeat(22)}$${'A'.repeat(86)}`;

/** Compares a password with a stored hash in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const usable = stored.startsWith('$pbkdf2-sha256$');
  const [, , iterationsText, saltText, hashText] = (usable ? stored : DUMMY_HASH).split('$');
  const iterations = Number(iterationsText);
  const expected = Buffer.from(hashText ?? '', 'base64');
  if (!Number.isInteger(iterations) || iterations <= 0 || expected.length === 0) return false;
  const actual = await pbkdf2Async(password, Buffer.from(saltText ?? '', 'base64'), iterations, expected.length, 'sha256');
  return timingSafeEqual(actual, expected) && usable;
}

function unpadded(buffer: Buffer): string {
  return buffer.toString('base64').replace(/=+$/, '');
}
