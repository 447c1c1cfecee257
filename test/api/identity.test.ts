import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';
import { expectApiError } from '../helpers/expect-api-error.js';

describe('first user, sign-in and sessions', () => {
  let test: TestDaemon;
  before(async () => {
    test = await startTestDaemon();
  });
  after(async () => test.close());

  it('reports that no first user exists on a new deployment', async () => {
    assert.equal(await test.anonymous.hasFirstUser(), false);
    const error = await expectApiError(test.anonymous.request('GET', '/users/first'), 404);
    assert.equal(error.message, 'The initial user has not been created!');
  });

  it('refuses a weak first-user password and names the field', async () => {
    const error = await expectApiError(
      test.anonymous.createFirstUser({ email: 'a@example.com', username: 'admin', password: 'password' }),
      400,
    );
    assert.equal(error.message, 'Password not strong enough!');
    assert.equal(error.body.validations?.[0]?.field, 'password');
    assert.equal(await test.anonymous.hasFirstUser(), false, 'a refused request must not create anything');
  });

  it('refuses a first user with an invalid username', async () => {
    const error = await expectApiError(
      test.anonymous.createFirstUser({ email: 'a@example.com', username: '-bad-', password: STRONG_PASSWORD }),
      400,
    );
    assert.deepEqual(
      error.body.validations?.map((v) => v.field),
      ['username'],
    );
  });

  it('creates the owner in the default organization, then refuses a second first user with 409', async () => {
    const created = await test.anonymous.createFirstUser({ email: 'a@example.com', username: 'admin', password: STRONG_PASSWORD });
    assert.equal(created.organization_id, test.daemon.identity.defaultOrganization.id);
    assert.equal(await test.anonymous.hasFirstUser(), true);
    const again = await expectApiError(
      test.anonymous.createFirstUser({ email: 'b@example.com', username: 'other', password: STRONG_PASSWORD }),
      409,
    );
    assert.equal(again.message, 'The initial user has already been created.');

    const { session_token } = await test.anonymous.login('a@example.com', STRONG_PASSWORD);
    assert.match(session_token, /^[0-9A-Za-z]{10}-[0-9A-Za-z]{22}$/);
    const me = await test.anonymous.withToken(session_token).user('me');
    assert.equal(me.id, created.user_id);
    assert.equal(me.username, 'admin');
    assert.equal(me.status, 'active');
    assert.equal(me.login_type, 'password');
    assert.deepEqual(
      me.roles.map((r) => r.name),
      ['owner'],
    );
    assert.deepEqual(me.organization_ids, [created.organization_id]);
  });

  it('answers a wrong password and an unknown email with the same 401', async () => {
    const wrong = await expectApiError(test.anonymous.login('a@example.com', 'Not-The-Password-1'), 401);
    const unknown = await expectApiError(test.anonymous.login('nobody@example.com', STRONG_PASSWORD), 401);
    assert.equal(wrong.message, 'Incorrect email or password.');
    assert.equal(unknown.message, wrong.message);
  });

  it('looks the user up by id and by username, and 404s for one that does not exist', async () => {
    const { session_token } = await test.anonymous.login('a@example.com', STRONG_PASSWORD);
    const client = test.anonymous.withToken(session_token);
    const me = await client.user('me');
    assert.equal((await client.user(me.id)).username, 'admin');
    assert.equal((await client.user('ADMIN')).id, me.id);
    await expectApiError(client.user('nobody'), 404);
    await expectApiError(client.user('8c4a2e5c-7c41-4f55-9a61-2b0c2c1f4e11'), 404);
  });

  it('ends a session on logout: the token then gets 401', async () => {
    const { session_token } = await test.anonymous.login('a@example.com', STRONG_PASSWORD);
    const client = test.anonymous.withToken(session_token);
    await client.user('me');
    const bye = await client.logout();
    assert.equal(bye.message, 'Logged out!');
    const error = await expectApiError(client.user('me'), 401);
    assert.equal(error.detail, 'API key is invalid.');
  });

  it('expires a session after its lifetime, and extends one that is used', async () => {
    const { session_token } = await test.anonymous.login('a@example.com', STRONG_PASSWORD);
    const client = test.anonymous.withToken(session_token);
    test.clock.advance(23 * 3_600_000);
    await client.user('me'); // used after its first hour: gets its full 24 hours back
    test.clock.advance(23 * 3_600_000);
    await client.user('me');
    test.clock.advance(25 * 3_600_000);
    const error = await expectApiError(client.user('me'), 401);
    assert.match(error.detail ?? '', /^API key expired at/);
  });

  it('rejects missing, malformed and forged tokens with 401 and says why', async () => {
    const missing = await expectApiError(test.anonymous.user('me'), 401);
    assert.match(missing.detail ?? '', /Service-Session-Token/);
    const malformed = await expectApiError(test.anonymous.withToken('not-a-token-at-all').user('me'), 401);
    assert.match(malformed.detail ?? '', /incorrect amount of API key parts/);
    const { session_token } = await test.anonymous.login('a@example.com', STRONG_PASSWORD);
    // Used once first, so the forged secret is checked against a cached session too.
    await test.anonymous.withToken(session_token).user('me');
    const forged = `${session_token.slice(0, 11)}${'x'.repeat(22)}`;
    const error = await expectApiError(test.anonymous.withToken(forged).user('me'), 401);
    assert.equal(error.detail, 'API key secret is invalid.');
  });
});

describe('API tokens', () => {
  let test: TestDaemon;
  before(async () => {
    test = await startTestDaemon();
  });
  after(async () => test.close());

  it('creates, lists, reads and deletes a named token', async () => {
    const owner = await createOwner(test);
    const { key } = await owner.createToken({ token_name: 'ci' });
    const tokenClient = test.anonymous.withToken(key);
    assert.equal((await tokenClient.user('me')).username, 'owner');

    const tokens = await owner.listTokens();
    assert.equal(tokens.length, 1);
    const [token] = tokens;
    assert.equal(token?.token_name, 'ci');
    assert.equal(token?.login_type, 'token');
    assert.equal(token?.username, 'owner');
    assert.equal(token?.lifetime_seconds, 7 * 24 * 3600, 'default token lifetime is 168h');
    assert.equal(key.split('-')[0], token?.id);
    assert.equal((await owner.tokenByName('ci')).id, token?.id);

    const duplicate = await expectApiError(owner.createToken({ token_name: 'ci' }), 409);
    assert.equal(duplicate.message, 'A token with name "ci" already exists.');

    await owner.deleteApiKey(token?.id ?? '');
    await expectApiError(tokenClient.user('me'), 401);
    await expectApiError(owner.deleteApiKey(token?.id ?? ''), 404);
    assert.deepEqual(await owner.listTokens(), []);
  });

  it('enforces token lifetimes against the token config', async () => {
    const owner = await test.anonymous.login('owner@example.com', STRONG_PASSWORD).then((r) => test.anonymous.withToken(r.session_token));
    const config = await owner.tokenConfig();
    // Owners are capped by the admin maximum: 168 hours, in nanoseconds.
    assert.equal(config.max_token_lifetime, 168 * 3600 * 1e9);
    const tooLong = await expectApiError(owner.createToken({ token_name: 'long', lifetime: 200 * 3600 * 1e9 }), 400);
    assert.equal(tooLong.detail, 'lifetime must be less than 168h0m0s');
    const negative = await expectApiError(owner.createToken({ token_name: 'neg', lifetime: -1 }), 400);
    assert.equal(negative.detail, 'lifetime must be positive number greater than 0');
    const { key } = await owner.createToken({ token_name: 'short', lifetime: 3600 * 1e9 });
    assert.equal((await owner.tokenByName('short')).lifetime_seconds, 3600);
    test.clock.advance(3_600_000 + 1000);
    await expectApiError(test.anonymous.withToken(key).user('me'), 401);
  });
});
