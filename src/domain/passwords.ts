import { pbkdf2, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { ConcurrencyLimit } from '../lib/concurrency-limit.js';

const pbkdf2Async = promisify(pbkdf2);

export { passwordEntropy, passwordWeakness } from '../lib/password-strength.js';

/**
 * A random password for an account made from the command line: 24 characters of URL-safe base64
 * (144 random bits), far above the strength rules and short enough to type.
 */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

/** The cost of a scrypt hash: N = 2^ln, block size r, parallelism p. */
interface ScryptCost {
  readonly ln: number;
  readonly r: number;
  readonly p: number;
}

/**
 * The cost new hashes get: OWASP's N=2^15, r=8, p=3, one of its equivalent settings with
 * N=2^17, r=8, p=1. Measured on a 2-core machine: 0.31 s and 32 MiB per hash, against 0.8 s and
 * 128 MiB for N=2^17 (whose allocation costs more than its extra work), so a few sign-ins at once
 * (libuv runs four) fit in memory.
 */
const CURRENT_COST: ScryptCost = { ln: 15, r: 8, p: 3 };

/** Set to `1` by the test runner (`scripts/test.mjs`); `cove serve` warns when it is set. */
export const WEAK_HASHES_VARIABLE = 'COVE_TEST_WEAK_PASSWORD_HASHES';

/**
 * The cost new hashes get under COVE_TEST_WEAK_PASSWORD_HASHES=1: N=2^10, r=8, p=1, about a
 * millisecond. The test suite signs users in thousands of times, and at the real cost the hashing
 * took most of its time. A hash names its cost, so a daemon started without the variable still
 * verifies these hashes, and replaces each with a full-cost one at its user's next sign-in.
 */
const TEST_COST: ScryptCost = { ln: 10, r: 8, p: 1 };

/** The cost of new hashes, read at each hash so that a test can ask for the real one. */
function newHashCost(): ScryptCost {
  return process.env[WEAK_HASHES_VARIABLE] === '1' ? TEST_COST : CURRENT_COST;
}
const SCRYPT_KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** What a stored hash may ask for: ours never come near it, and a damaged row must not take gigabytes. */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;

/** scrypt's own memory: 128·r·N bytes for the big array, a little more for the rest. */
function scryptMemory(cost: ScryptCost): number {
  return 128 * cost.r * (2 ** cost.ln + cost.p + 2);
}

/**
 * At most two hashes at once. Each holds one of libuv's four threads and 32 MiB for a third of a
 * second: a burst of sign-ins then waits its turn instead of taking every thread from the file
 * reads and DNS lookups that share them, and its memory stays bounded.
 */
const hashing = new ConcurrencyLimit(2);

function scryptAsync(password: string, salt: Buffer, length: number, cost: ScryptCost): Promise<Buffer> {
  return hashing.run(
    () =>
      new Promise((resolve, reject) => {
        // Node refuses by default above 32 MiB; allow what this cost needs, with room to spare.
        const options = { N: 2 ** cost.ln, r: cost.r, p: cost.p, maxmem: scryptMemory(cost) + 1024 * 1024 };
        scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
      }),
  );
}

/**
 * Hashes a password (or a one-time passcode) with scrypt and a random salt, in a string that says
 * how it was made: `$scrypt$ln=15,r=8,p=3$<salt>$<hash>`, unpadded base64, so that a later cost
 * can verify the hashes of an earlier one.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const cost = newHashCost();
  const hash = await scryptAsync(password, salt, SCRYPT_KEY_LENGTH, cost);
  return `${scryptPrefix(cost)}${unpadded(salt)}$${unpadded(hash)}`;
}

function scryptPrefix(cost: ScryptCost): string {
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$`;
}

/** A stored hash taken apart; undefined for what is neither a scrypt nor a PBKDF2 hash of ours. */
type ParsedHash =
  | { readonly kind: 'scrypt'; readonly cost: ScryptCost; readonly salt: Buffer; readonly hash: Buffer }
  | { readonly kind: 'pbkdf2'; readonly iterations: number; readonly salt: Buffer; readonly hash: Buffer };

function parseHash(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 5 || parts[0] !== '') return undefined;
  const [, kind = '', params = '', saltText = '', hashText = ''] = parts;
  const salt = Buffer.from(saltText, 'base64');
  const hash = Buffer.from(hashText, 'base64');
  if (salt.length === 0 || hash.length === 0) return undefined;
  if (kind === 'scrypt') {
    const match = /^ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})$/.exec(params);
    if (!match) return undefined;
    const cost = { ln: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
    if (cost.ln < 1 || cost.r < 1 || cost.p < 1 || scryptMemory(cost) > MAX_SCRYPT_MEMORY) return undefined;
    return { kind, cost, salt, hash };
  }
  // The format before scrypt: PBKDF2-HMAC-SHA256, verified so that its users can still sign in (and get rehashed).
  if (kind === 'pbkdf2-sha256') {
    const iterations = Number(params);
    if (!/^\d{1,7}$/.test(params) || iterations <= 0) return undefined;
    return { kind: 'pbkdf2', iterations, salt, hash };
  }
  return undefined;
}

/** Worked through when a user has no usable stored hash, so a miss takes as long as a hit. */
function dummyHash(): ParsedHash & { kind: 'scrypt' } {
  return parseHash(`${scryptPrefix(newHashCost())}${'A'.repeat(22)}$${'A'.repeat(43)}`) as ParsedHash & { kind: 'scrypt' };
}

/**
 * Compares a password with a stored hash, scrypt or the older PBKDF2, in constant time. A stored
 * value that is no hash of ours (an empty one: a user who signs in elsewhere) never matches, and
 * costs as much as one that is.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (parsed?.kind === 'scrypt') return scryptMatches(password, parsed);
  if (parsed?.kind === 'pbkdf2') {
    const actual = await pbkdf2Async(password, parsed.salt, parsed.iterations, parsed.hash.length, 'sha256');
    // A current hash's worth of work too, so that a user with an old hash is not told apart by timing.
    await scryptMatches(password, dummyHash());
    return timingSafeEqual(actual, parsed.hash);
  }
  await scryptMatches(password, dummyHash());
  return false;
}

async function scryptMatches(password: string, parsed: ParsedHash & { kind: 'scrypt' }): Promise<boolean> {
  const actual = await scryptAsync(password, parsed.salt, parsed.hash.length, parsed.cost);
  return timingSafeEqual(actual, parsed.hash);
}

/**
 * Whether a stored hash (one that just verified) should be replaced by a new one: it is PBKDF2,
 * or scrypt with less memory or less work than new hashes get. A stronger one is left as it is.
 */
export function needsRehash(stored: string): boolean {
  const parsed = parseHash(stored);
  if (parsed?.kind !== 'scrypt') return true;
  const { cost } = parsed;
  const wanted = newHashCost();
  const memory = (c: ScryptCost) => 2 ** c.ln * c.r;
  return memory(cost) < memory(wanted) || memory(cost) * cost.p < memory(wanted) * wanted.p || parsed.salt.length < SALT_LENGTH;
}

function unpadded(buffer: Buffer): string {
  return buffer.toString('base64').replace(/=+$/, '');
}
