// Builds and signs Cove license tokens: the one signing code path, used by scripts/sign-license.mjs
// and by the tests. The private key is always the caller's; none lives in this repository.
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';

const DAY_SECONDS = 86_400;

/**
 * The claims of a license issued at `now`: paid for `days` (its `license_expires`), valid for
 * `graceDays` more (its `exp`), from `notBeforeDays` on (its `nbf`). `features` maps a feature
 * name to 1 or to a limit.
 */
export function licenseClaims({
  now = new Date(),
  features = {},
  featureSet = '',
  days = 365,
  graceDays = 30,
  notBeforeDays = 0,
  trial = false,
  accountId = 'test',
  accountType = 'salesforce',
} = {}) {
  const issued = Math.floor(now.getTime() / 1000);
  const expires = issued + Math.round(days * DAY_SECONDS);
  return {
    version: 3,
    license_expires: expires,
    account_type: accountType,
    account_id: accountId,
    trial,
    all_features: false,
    feature_set: featureSet,
    features,
    jti: randomUUID(),
    iat: issued,
    nbf: issued + Math.round(notBeforeDays * DAY_SECONDS),
    exp: expires + Math.round(graceDays * DAY_SECONDS),
  };
}

/** Signs `claims` with an Ed25519 private key (a KeyObject), naming `kid` as the key to verify with. */
export function signLicense(claims, privateKey, kid) {
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid }).sign(privateKey);
}
