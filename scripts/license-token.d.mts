import type { KeyObject } from 'node:crypto';

/** What scripts/license-token.mjs needs to build a license's claims. */
export interface LicenseOptions {
  readonly now?: Date;
  readonly features?: Readonly<Record<string, number>>;
  readonly featureSet?: string;
  readonly days?: number;
  readonly graceDays?: number;
  readonly notBeforeDays?: number;
  readonly trial?: boolean;
  readonly accountId?: string;
  readonly accountType?: string;
}

/** The claims of a license, as signed (a type, not an interface, so that it is a JWT payload too). */
export type SignedLicenseClaims = {
  version: number;
  license_expires: number;
  account_type: string;
  account_id: string;
  trial: boolean;
  all_features: boolean;
  feature_set: string;
  features: Record<string, number>;
  jti: string;
  iat: number;
  nbf: number;
  exp: number;
};

export function licenseClaims(options?: LicenseOptions): SignedLicenseClaims;
export function signLicense(claims: Readonly<Record<string, unknown>>, privateKey: KeyObject, kid: string): Promise<string>;
