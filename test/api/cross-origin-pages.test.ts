import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { sendRaw, sessionCookie, type RawAnswer } from '../helpers/cross-origin-requests.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * No page of the daemon may be framed by another site: framed, `/cli-auth` and its "create a
 * session token" button, or the dashboard, could be dressed up to make a visitor click. Every
 * HTML answer says so twice, in its CSP (`frame-ancestors 'none'`) and in `X-Frame-Options`.
 */
describe('HTML answers of the daemon and framing', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let build: string;
  let host = '';

  before(async () => {
    build = mkdtempSync(join(tmpdir(), 'cove-web-frames-'));
    mkdirSync(join(build, 'assets'));
    writeFileSync(join(build, 'index.html'), '<!doctype html><title>fake dashboard</title>');
    test = await startTestDaemon({ dashboardDirectory: build });
    owner = await createOwner(test);
    host = new URL(test.url).host;
  });
  after(async () => {
    await test?.close();
    rmSync(build, { recursive: true, force: true });
  });

  const assertNotFramable = (answer: RawAnswer, what: string): void => {
    assert.match(String(answer.headers['content-type']), /^text\/html/, `${what} is a page`);
    assert.match(String(answer.headers['content-security-policy']), /(^|;\s*)frame-ancestors 'none'(;|$)/, `${what}: CSP`);
    assert.equal(answer.headers['x-frame-options'], 'DENY', `${what}: X-Frame-Options`);
  };

  it('marks the dashboard, its pages and its asset 404s as never framed', async () => {
    for (const path of ['/', '/login', '/workspaces', '/templates/docker', '/deployment/general', '/@owner/dev']) {
      const answer = await sendRaw(test.url, 'GET', path, { host, accept: 'text/html' });
      assert.equal(answer.status, 200, path);
      assertNotFramable(answer, path);
    }
    // The dashboard keeps its own policy, with the directive in it rather than a second header.
    const page = await sendRaw(test.url, 'GET', '/workspaces', { host });
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    const missing = await sendRaw(test.url, 'GET', '/assets/missing-00000000.js', { host });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['x-frame-options'], 'DENY');
  });

  it('marks /cli-auth, signed out, signed in, refused and with its token, as never framed', async () => {
    const signedOut = await sendRaw(test.url, 'GET', '/cli-auth', { host });
    assert.equal(signedOut.status, 200);
    assertNotFramable(signedOut, 'the signed-out CLI page');
    const token = owner.token ?? '';
    const signedIn = await sendRaw(test.url, 'GET', '/cli-auth', { host, ...sessionCookie(token) });
    assert.match(signedIn.text, /Create a session token/);
    assertNotFramable(signedIn, 'the signed-in CLI page');
    const refused = await sendRaw(test.url, 'POST', '/cli-auth', { host, origin: 'null', ...sessionCookie(token) });
    assert.equal(refused.status, 403, 'a form posted from an opaque origin (a sandboxed frame, a data: URL) is refused');
    assertNotFramable(refused, 'the refused CLI page');
    const created = await sendRaw(test.url, 'POST', '/cli-auth', { host, origin: test.url, ...sessionCookie(token) });
    assert.equal(created.status, 200);
    assert.match(created.text, /<pre id="token">/);
    assertNotFramable(created, 'the token page');
    // The page's own form post must carry its origin: `no-referrer` would make the browser send `Origin: null`.
    assert.doesNotMatch(signedIn.text, /content="no-referrer"/);
  });

  it('marks the sign-in failure pages as never framed', async () => {
    const failed = await sendRaw(test.url, 'GET', '/api/v2/users/oauth2/github/callback?code=x&state=y', { host, accept: 'text/html' });
    assert.ok(failed.status >= 400, `a sign-in nobody started fails: ${failed.status}`);
    assert.match(failed.text, /Sign-in failed/);
    assertNotFramable(failed, 'the sign-in failure page');
  });

  it("marks the relay's debug pages as never framed", async () => {
    for (const path of ['/api/v2/debug/coordinator', '/api/v2/debug/tailnet']) {
      const answer = await sendRaw(test.url, 'GET', path, { host, 'service-session-token': owner.token ?? '' });
      assert.equal(answer.status, 200, path);
      assertNotFramable(answer, path);
    }
  });
});
