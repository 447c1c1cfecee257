import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { TrustedKeys } from './trusted-keys.js';

/** The claims of a license (reference §5.1); `features` maps a feature name to a limit or 1. */
export interface LicenseClaims extends JWTPayload {
  readonly version?: number;
  readonly license_expires?: number;
  readonly account_type?: string;
  readonly account_id?: string;
  readonly trial?: boolean;
  readonly all_features?: boolean;
  readonly feature_set?: string;
  readonly features?: Readonly<Record<string, number>>;
}

/** Why a license is refused; its message is the answer's detail. */
export class LicenseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LicenseError';
  }
}

/**
 * Checks a license: an EdDSA-signed JWT whose header names a trusted key, valid at `now` (not
 * expired, not before its `nbf`), version 3, with `iat`, `nbf`, `exp` and a numeric
 * `license_expires`. Returns its claims; throws LicenseError saying what is wrong.
 */
export async function verifyLicense(token: string, keys: TrustedKeys, now: Date): Promise<LicenseClaims> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw new LicenseError('the license is not a signed token (a JWT in compact form)');
  }
  if (!kid) throw new LicenseError('JOSE header must contain kid');
  const key = keys.get(kid);
  if (!key) throw new LicenseError(`no key with ID ${kid}`);
  let claims: LicenseClaims;
  try {
    claims = (await jwtVerify(token, key, { algorithms: ['EdDSA'], currentDate: now, requiredClaims: ['exp', 'nbf', 'iat'] })).payload;
  } catch (error) {
    throw new LicenseError(describe(error));
  }
  if (claims.version !== 3) throw new LicenseError('license must be version 3');
  if (typeof claims.license_expires !== 'number') throw new LicenseError('license_expires claim missing or not a number');
  if (claims.features !== undefined && !isFeatureMap(claims.features))
    throw new LicenseError('features claim must map feature names to whole numbers');
  return claims;
}

/** A `features` claim as the reference reads it: a map of name to an integer (a limit, 1, or 0 for off). */
function isFeatureMap(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value as Record<string, unknown>).every((limit) => Number.isSafeInteger(limit))
  );
}

/** The claims of a stored license without checking its signature, for listings (expired and foreign ones still show). */
export function readLicenseClaims(token: string): LicenseClaims {
  try {
    return decodeJwt(token);
  } catch {
    return {};
  }
}

function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the license has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    // Only a present nbf that is still ahead means "not yet": a missing one is a malformed license.
    if (error.claim === 'nbf' && error.reason === 'check_failed') return 'the license is not valid yet (its nbf is in the future)';
    return `${error.claim} claim missing or not valid: ${error.message}`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return 'the license signature does not verify against the trusted key it names';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the license must be signed with EdDSA (Ed25519)';
  return error instanceof Error ? error.message : String(error);
}
