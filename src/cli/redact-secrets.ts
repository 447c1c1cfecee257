/** Keys whose values are credentials wherever they appear in a support bundle. */
const SECRET_KEY = /secret|password|token|key/i;

/** What stands in for a value that was taken out. */
export const REDACTED = '[redacted]';

/** Whether a key (a config path part, an option's name, flag or environment variable) names a credential. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** A URL's password replaced (`postgres://cove:[redacted]@db/cove`); other text as it is. */
export function redactUrlCredentials(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/@]+@/gi, `$1${REDACTED}@`);
}

/**
 * A copy of a JSON value with every value under a secret-looking key replaced, and passwords in
 * URLs taken out of every string. A deployment option (an object with `flag`, `env` or `yaml`)
 * whose names look secret, or that the daemon marks secret, has its `value` and `default` replaced.
 */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return redactUrlCredentials(value);
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const namesSecret =
    ['name', 'flag', 'env', 'yaml'].some((field) => typeof record[field] === 'string' && isSecretKey(record[field])) ||
    (record['annotations'] as Record<string, unknown> | undefined)?.['secret'] === 'true';
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(record)) {
    const secretValue = isSecretKey(key) || (namesSecret && (key === 'value' || key === 'default'));
    copy[key] = secretValue && inner !== '' && inner !== null && inner !== undefined ? REDACTED : redactSecrets(inner);
  }
  return copy;
}
