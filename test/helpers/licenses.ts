import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { licenseClaims, signLicense, type LicenseOptions, type SignedLicenseClaims } from '../../scripts/license-token.mjs';

/**
 * A license issuer of the test's own: an Ed25519 key pair made for the test, whose public half the
 * test daemon trusts through `--license-public-keys`. Signs through the same code as
 * scripts/sign-license.mjs.
 */
export class TestLicenseIssuer {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;

  constructor(readonly kid = 'test-issuer') {
    const pair = generateKeyPairSync('ed25519');
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  /** The `--license-public-keys` entry that makes a daemon trust this issuer: `KEY_ID=BASE64-SPKI`. */
  get trustEntry(): string {
    return `${this.kid}=${this.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
  }

  /** The claims of a license issued at `options.now` (the test daemon's clock, not the wall clock). */
  claims(options: LicenseOptions): SignedLicenseClaims {
    return licenseClaims(options);
  }

  /** Signs claims as given, including claims made wrong on purpose. */
  sign(claims: Readonly<Record<string, unknown>>, kid = this.kid): Promise<string> {
    return signLicense(claims, this.privateKey, kid);
  }

  /** A valid license issued at `options.now`. */
  license(options: LicenseOptions): Promise<string> {
    return this.sign(this.claims(options));
  }
}
