/**
 * A cloud identity that does not prove what it claims. `invalid` is a forged, tampered, expired or
 * untrusted proof (401); `claims` is a validly signed proof whose claims cannot be read (400).
 * The message says why, for the answer's detail.
 */
export class IdentityRejected extends Error {
  constructor(
    readonly kind: 'invalid' | 'claims',
    message: string,
  ) {
    super(message);
    this.name = 'IdentityRejected';
  }
}

/** Throws an `invalid` rejection. */
export function reject(message: string): never {
  throw new IdentityRejected('invalid', message);
}
