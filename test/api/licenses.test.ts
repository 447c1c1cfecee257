import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { ENTITLEMENTS_CHANNEL } from '../../src/domain/entitlements.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Entitlements, License } from '../../src/sdk/wire/index.js';
import { expectApiError, rawRequest } from '../helpers/expect-api-error.js';
import { TestLicenseIssuer } from '../helpers/licenses.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe('licenses and entitlements', () => {
  const issuer = new TestLicenseIssuer();
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;

  /** A valid license of the test issuer, issued now by the daemon's clock. */
  const license = (options: Parameters<TestLicenseIssuer['license']>[0] = {}) => issuer.license({ now: test.clock.now(), ...options });

  /** Deletes every stored license. */
  async function deleteAll(): Promise<void> {
    for (const stored of await owner.licenses()) await owner.deleteLicense(stored.id);
  }

  before(async () => {
    // Sessions outlive the days the clock is moved by.
    test = await startTestDaemon({ flags: { licensePublicKeys: issuer.trustEntry, sessionDurationMs: '100000h' } });
    owner = await createOwner(test);
    member = await createMember(test, 'member');
  });
  after(async () => test.close());
  // Each test starts from an unlicensed deployment, whatever the one before left behind.
  beforeEach(async () => deleteAll());

  it('starts unlicensed: every feature not entitled, no warnings', async () => {
    const entitlements = await owner.entitlements();
    assert.equal(entitlements.has_license, false);
    assert.equal(entitlements.trial, false);
    assert.deepEqual(entitlements.warnings, []);
    assert.deepEqual(entitlements.errors, []);
    for (const [name, state] of Object.entries(entitlements.features)) {
      assert.equal(state.entitlement, 'not_entitled', name);
      assert.equal(state.enabled, false, name);
    }
    assert.ok('advanced_template_scheduling' in entitlements.features);
    assert.deepEqual(await owner.licenses(), []);
  });

  it('adds a valid license: 201 with id, uuid, uploaded_at and claims; lists it; entitles its features; deletes it', async () => {
    const claims = issuer.claims({ now: test.clock.now(), features: { advanced_template_scheduling: 1, user_limit: 10 } });
    const added = await owner.addLicense(await issuer.sign(claims));
    assert.ok(Number.isInteger(added.id));
    assert.equal(added.uuid, claims.jti, 'the uuid is the license jti');
    assert.equal(added.uploaded_at, test.clock.now().toISOString());
    assert.deepEqual(added.claims, { ...claims });
    assert.ok(!Object.values(added).some((value) => typeof value === 'string' && value.split('.').length === 3), 'never the token');

    assert.deepEqual(await owner.licenses(), [added]);
    assert.deepEqual(await member.licenses(), [], 'members may not read licenses: the list is filtered, as the reference');

    const entitlements = await owner.entitlements();
    assert.equal(entitlements.has_license, true);
    assert.deepEqual(entitlements.warnings, [], 'a year left, 2 of 10 users: nothing to warn about');
    assert.deepEqual(entitlements.features['advanced_template_scheduling'], { entitlement: 'entitled', enabled: true });
    assert.deepEqual(entitlements.features['user_limit'], { entitlement: 'entitled', enabled: true, limit: 10, actual: 2 });
    assert.deepEqual(entitlements.features['audit_log'], { entitlement: 'not_entitled', enabled: false }, 'not in the license');
    assert.deepEqual(await member.entitlements(), entitlements, 'every signed-in user reads the entitlements');

    await owner.deleteLicense(added.id);
    assert.deepEqual(await owner.licenses(), []);
    const after = await owner.entitlements();
    assert.equal(after.has_license, false);
    assert.deepEqual(after.features['advanced_template_scheduling'], { entitlement: 'not_entitled', enabled: false });
  });

  it('never leaves the entitlements behind the licenses, however quickly they change', async () => {
    // Other replicas announce license changes; a computation started on such news before a
    // deletion must not finish after the deletion's own and put the deleted license back in effect.
    let stale = 0;
    for (let round = 0; round < 20; round++) {
      const added = await owner.addLicense(await license({ features: { audit_log: 1 } }));
      const news = Array.from({ length: 20 }, () => test.daemon.store.pubsub.publish(ENTITLEMENTS_CHANNEL, 'license'));
      await owner.deleteLicense(added.id);
      await Promise.all(news);
      if ((await owner.entitlements()).has_license || test.daemon.store.features.has('audit_log')) stale++;
    }
    assert.equal(stale, 0, 'rounds that ended with the deleted license still in effect');
  });

  it('grants every feature of a feature set but the limits', async () => {
    const added = await owner.addLicense(await license({ featureSet: 'enterprise' }));
    const { features } = await owner.entitlements();
    assert.equal(features['audit_log']?.entitlement, 'entitled');
    assert.equal(features['advanced_template_scheduling']?.entitlement, 'entitled');
    assert.equal(features['multiple_organizations']?.entitlement, 'not_entitled', 'premium only');
    assert.equal(features['user_limit']?.entitlement, 'not_entitled', 'a limit comes only from the features map');
    await owner.deleteLicense(added.id);
  });

  it('warns when the active users exceed the user limit', async () => {
    const added = await owner.addLicense(await license({ features: { user_limit: 1 } }));
    const entitlements = await owner.entitlements();
    assert.deepEqual(entitlements.features['user_limit'], { entitlement: 'entitled', enabled: true, limit: 1, actual: 2 });
    assert.deepEqual(entitlements.warnings, ['Your deployment has 2 active users but is only licensed for 1.']);
    await owner.deleteLicense(added.id);
    assert.deepEqual((await owner.entitlements()).warnings, []);
  });

  it('warns when the license expires within 30 days, or within 7 for a trial', async () => {
    const soon = await owner.addLicense(await license({ features: { audit_log: 1 }, days: 10 }));
    assert.deepEqual((await owner.entitlements()).warnings, ['Your license expires in 10 days.']);
    await owner.deleteLicense(soon.id);

    const trial = await owner.addLicense(await license({ features: { audit_log: 1 }, days: 10, trial: true }));
    const trialEntitlements = await owner.entitlements();
    assert.equal(trialEntitlements.trial, true);
    assert.deepEqual(trialEntitlements.warnings, [], 'a trial is warned a week before');
    await owner.deleteLicense(trial.id);

    const lastDay = await owner.addLicense(await license({ features: { audit_log: 1 }, days: 1, trial: true }));
    assert.deepEqual((await owner.entitlements()).warnings, ['Your license expires in 1 day.']);
    await owner.deleteLicense(lastDay.id);
  });

  it('keeps the features in their grace period after license_expires, until exp', async () => {
    const added = await owner.addLicense(
      await issuer.license({ now: new Date(test.clock.now().getTime() - 2 * DAY), days: 1, graceDays: 30, features: { audit_log: 1 } }),
    );
    const entitlements = await owner.entitlements();
    assert.equal(entitlements.has_license, true);
    assert.deepEqual(entitlements.features['audit_log'], { entitlement: 'grace_period', enabled: true });
    await owner.deleteLicense(added.id);
  });

  it('refuses forged, expired, not yet valid and malformed licenses with 400 and stores nothing', async () => {
    const now = test.clock.now();
    const claims = issuer.claims({ now, features: { advanced_template_scheduling: 1 } });
    const valid = await issuer.sign(claims);
    const [header = '', payload = '', signature = ''] = valid.split('.');
    const stranger = generateKeyPairSync('ed25519').privateKey;
    const ecKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const cases: [string, string, RegExp][] = [
      [
        'signed by another key under the trusted key id',
        await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: issuer.kid }).sign(stranger),
        /signature does not verify/,
      ],
      ['signed by a key nobody trusts', await issuer.sign(claims, 'someone-else'), /no key with ID someone-else/],
      ['without a key id', await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA' }).sign(issuer.privateKey), /must contain kid/],
      [
        'a payload changed after signing',
        `${header}.${base64url({ ...claims, features: { user_limit: 1000 } })}.${signature}`,
        /signature/,
      ],
      ['expired', await issuer.license({ now: new Date(now.getTime() - 60 * DAY), days: 20, graceDays: 10 }), /the license has expired/],
      ['not valid yet', await issuer.license({ now, notBeforeDays: 3 }), /not valid yet/],
      ['not a JWT', 'not-a-license', /not a signed token/],
      ['bad base64 in the header', `!!!.${payload}.${signature}`, /not a signed token/],
      ['bad base64 in the payload', `${header}.%%%.${signature}`, /signature/],
      [
        'signed with HS256',
        await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: issuer.kid }).sign(Buffer.alloc(32, 7)),
        /must be signed with EdDSA/,
      ],
      ['signed with ES256', await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: issuer.kid }).sign(ecKey), /EdDSA/],
      ['unsigned (alg none)', `${base64url({ alg: 'none', kid: issuer.kid })}.${payload}.`, /EdDSA/],
      ['without version', await issuer.sign({ ...claims, version: undefined }), /must be version 3/],
      ['version 2', await issuer.sign({ ...claims, version: 2 }), /must be version 3/],
      ['without iat', await issuer.sign({ ...claims, iat: undefined }), /iat/],
      ['without nbf', await issuer.sign({ ...claims, nbf: undefined }), /nbf claim/],
      ['without exp', await issuer.sign({ ...claims, exp: undefined }), /exp claim/],
      ['without license_expires', await issuer.sign({ ...claims, license_expires: undefined }), /license_expires/],
      ['license_expires not a number', await issuer.sign({ ...claims, license_expires: 'next year' }), /license_expires/],
      ['features not a map', await issuer.sign({ ...claims, features: 'all' }), /features/],
      ['a feature that is not a number', await issuer.sign({ ...claims, features: { user_limit: 'ten' } }), /features/],
    ];
    for (const [name, token, detail] of cases) {
      const error = await expectApiError(owner.addLicense(token), 400);
      assert.equal(error.body.message, 'Invalid license', name);
      assert.equal(typeof error.body.detail, 'string', name);
      assert.match(String(error.body.detail), detail, name);
    }
    const missing = await rawRequest(test.url, 'POST', '/licenses', {
      body: '{}',
      headers: { 'content-type': 'application/json', 'Service-Session-Token': owner.token ?? '' },
    });
    assert.equal(missing.status, 400);
    assert.deepEqual(
      (missing.body['validations'] as { field: string }[]).map((v) => v.field),
      ['license'],
    );
    assert.deepEqual(await owner.licenses(), [], 'nothing stored');
    assert.equal((await owner.entitlements()).has_license, false);
  });

  it('refuses a license already added with 409 and keeps one copy', async () => {
    const token = await license({ features: { audit_log: 1 } });
    const added = await owner.addLicense(token);
    const again = await expectApiError(owner.addLicense(token), 409);
    assert.equal(again.body.message, 'This license has already been added.');
    assert.equal(again.body.detail, `license ${added.uuid}`);
    assert.deepEqual(
      (await owner.licenses()).map((l) => l.id),
      [added.id],
    );
    await deleteAll();
  });

  it('answers 404 to deleting a license that is not there or an id that is not an integer', async () => {
    await expectApiError(owner.deleteLicense(4242), 404, /Unknown license ID/);
    // Past the 32-bit ids of PostgreSQL, and past the integers a double holds exactly.
    await expectApiError(owner.deleteLicense(String(2 ** 31)), 404, /Unknown license ID/);
    await expectApiError(owner.deleteLicense('18446744073709551616'), 404, /Unknown license ID/);
    await expectApiError(owner.deleteLicense('abc'), 404, /License ID must be an integer/);
  });

  it('lets only owners add, delete and refresh: a member gets 403 and changes nothing', async () => {
    const token = await license({ features: { advanced_template_scheduling: 1 } });
    await expectApiError(member.addLicense(token), 403);
    assert.deepEqual(await owner.licenses(), []);
    const added = await owner.addLicense(token);
    await expectApiError(member.deleteLicense(added.id), 403);
    assert.deepEqual(
      (await owner.licenses()).map((l: License) => l.id),
      [added.id],
    );
    await expectApiError(member.refreshEntitlements(), 403);
    await owner.deleteLicense(added.id);
  });

  it('refresh-entitlements computes them again: 201, at most once a minute (400 with Retry-After)', async () => {
    // A license whose exp passes while entitlements stand: only a computation notices.
    const shortLived = await owner.addLicense(await license({ features: { audit_log: 1 }, days: 1, graceDays: 0 }));
    const before: Entitlements = await owner.entitlements();
    assert.equal(before.has_license, true);
    test.clock.advance(2 * DAY);
    assert.equal((await owner.entitlements()).has_license, true, 'entitlements stand until computed again');

    assert.deepEqual(await owner.refreshEntitlements(), { message: 'Entitlements updated' });
    const refreshed = await owner.entitlements();
    assert.equal(refreshed.has_license, false, 'the expired license no longer counts');
    assert.equal(refreshed.refreshed_at, test.clock.now().toISOString());

    test.clock.advance(20_000);
    const again = await rawRequest(test.url, 'POST', '/licenses/refresh-entitlements', {
      headers: { 'Service-Session-Token': owner.token ?? '' },
    });
    assert.equal(again.status, 400);
    assert.match(String(again.body['message']), /recently refreshed, please wait 40 seconds/);
    assert.equal(again.headers.get('retry-after'), '40');

    test.clock.advance(40_000);
    assert.deepEqual(await owner.refreshEntitlements(), { message: 'Entitlements updated' });
    assert.deepEqual(
      (await owner.licenses()).map((l) => l.id),
      [shortLived.id],
      'an expired license is still listed, for its owner to delete',
    );
    await deleteAll();
  });
});

describe('trusted license keys', () => {
  it('trusts every key of COVE_LICENSE_PUBLIC_KEYS, comma-separated, besides its own', async () => {
    const first = new TestLicenseIssuer('first');
    const second = new TestLicenseIssuer('second');
    const stranger = new TestLicenseIssuer('stranger');
    const test = await startTestDaemon({ env: { COVE_LICENSE_PUBLIC_KEYS: `${first.trustEntry},${second.trustEntry}` } });
    try {
      const owner = await createOwner(test);
      for (const issuer of [first, second]) await owner.addLicense(await issuer.license({ now: test.clock.now() }));
      await expectApiError(owner.addLicense(await stranger.license({ now: test.clock.now() })), 400, /no key with ID stranger/);
      assert.equal((await owner.licenses()).length, 2);
    } finally {
      await test.close();
    }
  });

  it('refuses to start with a license key that is not KEY_ID=BASE64 of an Ed25519 public key', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const cases: [string, RegExp][] = [
      ['no-key-id', /must be KEY_ID=BASE64/],
      ['broken=bm90IGEga2V5', /"broken" is not an SPKI public key/],
      [`rsa=${rsa}`, /"rsa" is not an Ed25519 key/],
    ];
    for (const [entry, message] of cases) {
      await assert.rejects(startTestDaemon({ flags: { licensePublicKeys: entry } }), message, entry);
    }
  });
});
