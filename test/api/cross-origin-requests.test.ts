import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { sendRaw, sessionCookie, type RawAnswer } from '../helpers/cross-origin-requests.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * A page on another origin of the same site (another port of the host, an app subdomain) gets the
 * visitor's session cookie attached to what it sends, SameSite=Lax or not. Writes it sends that way
 * are refused; the same requests from the deployment's own pages, or with the token in the header,
 * go through.
 */
describe('cookie-authenticated writes from other origins', () => {
  let test: TestDaemon;
  let alice: CoveClient;
  let host = '';
  let other = '';
  let appHost = '';

  before(async () => {
    test = await startTestDaemon({ flags: { wildcardAccessUrl: '*.apps.test' } });
    await createOwner(test);
    alice = await createMember(test, 'alice');
    const url = new URL(test.url);
    host = url.host;
    // Another port of the same host: the same site, so the browser sends the host's cookies.
    other = `http://${url.hostname}:${Number(url.port) === 65535 ? 1 : Number(url.port) + 1}`;
    appHost = `http://8080--main--dev--alice.apps.test:${url.port}`;
  });
  after(async () => test?.close());

  /** Where a page elsewhere can make a request look as if it came from: every one is refused. */
  const foreignSources = (): Record<string, Record<string, string>> => ({
    'a foreign Origin': { origin: other },
    'Origin: null': { origin: 'null' },
    "an app subdomain's Origin": { origin: appHost },
    'a foreign Referer alone': { referer: `${other}/attack.html` },
    'Sec-Fetch-Site: cross-site alone': { 'sec-fetch-site': 'cross-site' },
    'Sec-Fetch-Site: same-site alone': { 'sec-fetch-site': 'same-site' },
  });

  /** A fresh session of alice's (an API key works as a cookie as well as a session does). */
  const freshToken = async (): Promise<{ token: string; id: string }> => {
    const { key } = await alice.createSessionKey();
    return { token: key, id: key.split('-')[0] ?? '' };
  };

  const assertRefused = (answer: RawAnswer, what: string): void => {
    assert.equal(answer.status, 403, `${what}: ${answer.text}`);
    assert.match(String(answer.json?.['message']), /another origin/, what);
    assert.ok(String(answer.json?.['detail']).includes(test.url), `${what}: the detail names ${test.url}: ${answer.text}`);
  };

  const sessionKeys = async (): Promise<number> => {
    const user = await alice.user('me');
    const rows = await test.daemon.store.db.selectFrom('api_keys').select('id').where('user_id', '=', user.id).execute();
    return rows.length;
  };

  it('refuses POST /users/me/keys and POST /users/me/keys/tokens, and no key is made', async () => {
    const { token } = await freshToken();
    const keysBefore = await sessionKeys();
    for (const [what, source] of Object.entries(foreignSources())) {
      assertRefused(
        await sendRaw(test.url, 'POST', '/api/v2/users/me/keys', { host, ...sessionCookie(token), ...source }),
        `keys, ${what}`,
      );
      const tokenBody = JSON.stringify({ token_name: `stolen-${Object.keys(source)[0] ?? ''}` });
      const named = await sendRaw(
        test.url,
        'POST',
        '/api/v2/users/me/keys/tokens',
        { host, ...sessionCookie(token), 'content-type': 'application/json', ...source },
        tokenBody,
      );
      assertRefused(named, `tokens, ${what}`);
    }
    assert.deepEqual(
      (await alice.listTokens()).map((row) => row.token_name),
      [],
    );
    assert.equal(await sessionKeys(), keysBefore, 'no session key was made');
  });

  it('refuses POST /users/logout: the session stays', async () => {
    const { token } = await freshToken();
    for (const [what, source] of Object.entries(foreignSources())) {
      assertRefused(
        await sendRaw(test.url, 'POST', '/api/v2/users/logout', { host, ...sessionCookie(token), ...source }),
        `logout, ${what}`,
      );
    }
    assert.equal((await alice.withToken(token).user('me')).username, 'alice');
  });

  it('refuses PUT /users/me/gitsshkey: the key pair stays', async () => {
    const { token } = await freshToken();
    const before = (await alice.gitSshKey()).public_key;
    for (const [what, source] of Object.entries(foreignSources())) {
      assertRefused(
        await sendRaw(test.url, 'PUT', '/api/v2/users/me/gitsshkey', { host, ...sessionCookie(token), ...source }),
        `gitsshkey, ${what}`,
      );
    }
    assert.equal((await alice.gitSshKey()).public_key, before);
  });

  it('refuses DELETE /users/me/keys/{id}: the key stays', async () => {
    const { token } = await freshToken();
    const victim = await freshToken();
    for (const [what, source] of Object.entries(foreignSources())) {
      const answer = await sendRaw(test.url, 'DELETE', `/api/v2/users/me/keys/${victim.id}`, { host, ...sessionCookie(token), ...source });
      assertRefused(answer, `delete key, ${what}`);
    }
    assert.equal((await alice.apiKey(victim.id)).id, victim.id);
  });

  it("accepts them from the deployment's own pages, and from clients that are not browsers", async () => {
    const { token } = await freshToken();
    const own: Record<string, Record<string, string>> = {
      'the access URL as Origin': { origin: test.url },
      'Sec-Fetch-Site: same-origin': { 'sec-fetch-site': 'same-origin' },
      'Sec-Fetch-Site: none': { 'sec-fetch-site': 'none' },
      'a Referer on the dashboard': { referer: `${test.url}/workspaces` },
      'no Origin, Sec-Fetch-Site or Referer': {},
    };
    for (const [what, source] of Object.entries(own)) {
      const answer = await sendRaw(test.url, 'POST', '/api/v2/users/me/keys', { host, ...sessionCookie(token), ...source });
      assert.equal(answer.status, 201, `${what}: ${answer.text}`);
    }
    // The same daemon under another of its names is the same deployment, as far as its cookie goes.
    const port = new URL(test.url).port;
    const byName = await sendRaw(test.url, 'POST', '/api/v2/users/me/keys', {
      host: `localhost:${port}`,
      origin: `http://localhost:${port}`,
      ...sessionCookie(token),
    });
    assert.equal(byName.status, 201, byName.text);
    const gitKey = await sendRaw(test.url, 'PUT', '/api/v2/users/me/gitsshkey', { host, origin: test.url, ...sessionCookie(token) });
    assert.equal(gitKey.status, 200, gitKey.text);
    const victim = await freshToken();
    const deleted = await sendRaw(test.url, 'DELETE', `/api/v2/users/me/keys/${victim.id}`, {
      host,
      origin: test.url,
      ...sessionCookie(token),
    });
    assert.equal(deleted.status, 204, deleted.text);
    const logout = await sendRaw(test.url, 'POST', '/api/v2/users/logout', { host, origin: test.url, ...sessionCookie(token) });
    assert.equal(logout.status, 200, logout.text);
    await expectApiError(alice.withToken(token).user('me'), 401);
  });

  it('leaves header-token clients alone, whatever page they claim to come from', async () => {
    const { token } = await freshToken();
    for (const [what, source] of Object.entries(foreignSources())) {
      // The header wins over a cookie of someone else's, as for any request.
      const answer = await sendRaw(test.url, 'POST', '/api/v2/users/me/keys', {
        host,
        'service-session-token': token,
        ...sessionCookie('bogus-cookie-value'),
        ...source,
      });
      assert.equal(answer.status, 201, `${what}: ${answer.text}`);
    }
  });

  it('lets cookie-authenticated reads through from anywhere: the browser keeps their answers from the page', async () => {
    const { token } = await freshToken();
    const read = await sendRaw(test.url, 'GET', '/api/v2/users/me', {
      host,
      origin: other,
      'sec-fetch-site': 'same-site',
      ...sessionCookie(token),
    });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.headers['access-control-allow-origin'], undefined, 'no page elsewhere may read the answer');
  });

  it('takes a session cookie that is not valid percent-encoding for a bad token, not a failure', async () => {
    const cookie = 'service_session_token=%E0%A4%A';
    assert.equal((await sendRaw(test.url, 'GET', '/api/v2/users/me', { host, cookie })).status, 401);
    assert.equal((await sendRaw(test.url, 'POST', '/api/v2/users/me/keys', { host, cookie, origin: test.url })).status, 401);
    assert.equal((await sendRaw(test.url, 'POST', '/api/v2/users/me/keys', { host, cookie, origin: other })).status, 403);
  });

  it("refuses any API request, reads too, sent from a path app's page", async () => {
    const { token } = await freshToken();
    const appPages = [
      `${test.url}/@alice/dev/apps/code/`,
      `${test.url}/@alice/dev.main/apps/8080/index.html?x=1`,
      `${test.url}/%40alice/dev.main/apps/code/deep/page`,
      `${test.url}/@alice/dev/apps/code`,
    ];
    for (const referer of appPages) {
      for (const method of ['GET', 'POST']) {
        const path = method === 'GET' ? '/api/v2/users/me' : '/api/v2/users/me/keys';
        const answer = await sendRaw(test.url, method, path, { host, referer, ...sessionCookie(token) });
        assert.equal(answer.status, 403, `${method} from ${referer}: ${answer.text}`);
        assert.match(String(answer.json?.['message']), /workspace app/);
      }
      // A client that sends its token in the header chose to; the dashboard's own pages are not apps.
      const withHeader = await sendRaw(test.url, 'GET', '/api/v2/users/me', { host, referer, 'service-session-token': token });
      assert.equal(withHeader.status, 200, withHeader.text);
    }
    for (const referer of [`${test.url}/@alice/dev`, `${test.url}/@alice/dev.main/terminal`, `${test.url}/workspaces`]) {
      const answer = await sendRaw(test.url, 'GET', '/api/v2/users/me', { host, referer, ...sessionCookie(token) });
      assert.equal(answer.status, 200, `from ${referer}: ${answer.text}`);
    }
  });
});
