import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

describe('creating and listing users', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;
  let orgId: string;
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
    member = await createMember(test, 'member');
    orgId = test.daemon.identity.defaultOrganization.id;
  });
  after(async () => test.close());

  it('creates a dormant password user who becomes active on first sign-in', async () => {
    const user = await owner.createUser({
      email: 'bob@example.com',
      username: 'bob',
      password: STRONG_PASSWORD,
      organization_ids: [orgId],
    });
    assert.equal(user.status, 'dormant');
    assert.deepEqual(user.organization_ids, [orgId]);
    const { session_token } = await test.anonymous.login('bob@example.com', STRONG_PASSWORD);
    assert.equal((await test.anonymous.withToken(session_token).user('me')).status, 'active');
  });

  it('applies the creation rules in order', async () => {
    const base = { email: 'carol@example.com', username: 'carol', password: STRONG_PASSWORD };
    const noOrg = await expectApiError(owner.createUser(base), 400);
    assert.deepEqual(
      noOrg.body.validations?.map((v) => v.field),
      ['organization_ids'],
    );
    await expectApiError(owner.createUser({ ...base, login_type: 'none', organization_ids: [orgId] }), 400);
    await expectApiError(owner.createUser({ ...base, password: 'weak', organization_ids: [orgId] }), 400);
    await expectApiError(owner.createUser({ ...base, login_type: 'oidc', password: undefined, organization_ids: [orgId] }), 400);
    await expectApiError(owner.createUser({ ...base, organization_ids: ['5b7c1d2e-3f40-4a51-9b62-7c83d94ea5f6'] }), 404);
    const dup = await expectApiError(owner.createUser({ ...base, username: 'BOB', organization_ids: [orgId] }), 409);
    assert.equal(dup.message, 'User already exists.');
    const denied = await expectApiError(member.createUser({ ...base, organization_ids: [orgId] }), 403);
    assert.equal(denied.message, 'You are not authorized to create users.');
    const nil = await owner.createUser({
      ...base,
      login_type: 'none',
      password: undefined,
      user_status: 'active',
      organization_ids: ['00000000-0000-0000-0000-000000000000'],
    });
    assert.deepEqual(nil.organization_ids, [orgId]);
  });

  it('lists users with search filters and paging; members see only themselves', async () => {
    const all = await owner.users();
    assert.equal(all.count, all.users.length);
    assert.ok(all.count >= 4);
    assert.deepEqual(
      (await owner.users({ q: 'status:dormant' })).users.map((u) => u.username),
      [],
    );
    assert.deepEqual(
      (await owner.users({ q: 'role:owner' })).users.map((u) => u.username),
      ['owner'],
    );
    assert.deepEqual(
      (await owner.users({ q: 'login_type:none' })).users.map((u) => u.username),
      ['carol'],
    );
    assert.deepEqual(
      (await owner.users({ q: 'bo' })).users.map((u) => u.username),
      ['bob'],
    );
    const page = await owner.users({ limit: 2, offset: 1 });
    assert.equal(page.users.length, 2);
    assert.equal(page.count, all.count);
    assert.deepEqual(
      page.users.map((u) => u.id),
      all.users.slice(1, 3).map((u) => u.id),
    );
    const after = await owner.users({ after_id: all.users[0]?.id ?? '' });
    assert.deepEqual(
      after.users.map((u) => u.id),
      all.users.slice(1).map((u) => u.id),
    );
    const mine = await member.users();
    assert.deepEqual(
      mine.users.map((u) => u.username),
      ['member'],
    );
    await expectApiError(owner.users({ q: 'colour:blue' }), 400);
    await expectApiError(owner.request('GET', '/users', { query: { limit: -1 } }), 400);
  });

  it('answers GET /users/me with what changed since the same session last asked', async () => {
    const dana = await createMember(test, 'dana');
    const before = await dana.user('me');
    assert.deepEqual(before, await dana.user('me'), 'asked twice, the answer is the same');
    assert.deepEqual(await owner.user(before.id), before, 'the same as others read it');
    await owner.updateProfile(before.id, { username: 'dana2', name: 'Dana Two' });
    await owner.setSiteRoles(before.id, ['auditor']);
    const now = await dana.user('me');
    assert.equal(now.username, 'dana2');
    assert.equal(now.name, 'Dana Two');
    assert.deepEqual(
      now.roles.map((role) => role.name),
      ['auditor'],
    );
    assert.deepEqual(now, await owner.user(before.id));
  });
});
