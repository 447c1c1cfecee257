// The strength rule for passwords, with no dependency: the daemon enforces it and the CLI checks a
// password typed at a prompt against it before sending it.

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
