import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket, WebSocketServer } from 'ws';
import type { AgentHandle } from '../../src/agent/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { eventually } from '../helpers/eventually.js';

const TOKEN = 'agent-token-for-the-app-proxy';
const APP_HOST = 'sub--main--dev--alice.apps.test';

/** What the test app saw of a request. */
interface Seen {
  readonly server: string;
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** An HTTP server "inside the workspace" that describes each request it gets; `/teapot` answers 418. */
async function startApp(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const seen: Seen = {
        server: name,
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      response.writeHead((request.url ?? '').includes('teapot') ? 418 : 200, {
        'content-type': 'application/json',
        'x-app-name': name,
        'set-cookie': 'app_cookie=from-the-app; Path=/',
      });
      response.end(JSON.stringify(seen));
    });
  });
  // WebSocket upgrades on /ws are echoed back, prefixed.
  const sockets = new WebSocketServer({ server, path: '/base/ws' });
  sockets.on('connection', (socket) => socket.on('message', (data) => socket.send(`echo:${data.toString()}`)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A request with a chosen `Host` header (fetch will not send one), never following redirects. */
function send(
  base: string,
  path: string,
  init: { readonly host?: string; readonly method?: string; readonly headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: init.method ?? 'GET',
        headers: { ...(init.host ? { host: init.host } : {}), ...init.headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('workspace apps and shared ports, proxied through the relay', () => {
  let test: TestDaemon;
  let alice: CoveClient;
  let bob: CoveClient;
  let agent: AgentHandle;
  let agentId: string;
  let workspaceId: string;
  let home: string;
  const servers: Server[] = [];
  let appPort: number;
  let publicPort: number;
  let authenticatedPort: number;
  let deadPort: number;

  const aliceHeaders = () => ({ 'Service-Session-Token': alice.token ?? '' });
  const bobHeaders = () => ({ 'Service-Session-Token': bob.token ?? '' });
  /** A request to alice's app or port `slugOrPort` on agent `main` of `dev`, on its subdomain. */
  const onSubdomain = (slugOrPort: string, path: string, headers: Record<string, string> = {}, method = 'GET') =>
    send(test.url, path, { host: `${slugOrPort}--main--dev--alice.apps.test`, headers, method });

  before(async () => {
    const app = await startApp('app');
    const publicShare = await startApp('public-share');
    const authenticatedShare = await startApp('authenticated-share');
    servers.push(app.server, publicShare.server, authenticatedShare.server);
    appPort = app.port;
    publicPort = publicShare.port;
    authenticatedPort = authenticatedShare.port;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));

    test = await startTestDaemon({ flags: { provisionerDaemons: '1', wildcardAccessUrl: '*.apps.test' } });
    const owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    bob = await createMember(test, 'bob');
    const apps = [
      { slug: 'web', url: `http://localhost:${appPort}/base`, share: 'owner' },
      { slug: 'open', url: `http://127.0.0.1:${appPort}/base/?from=app-url`, share: 'public' },
      { slug: 'dead', url: `http://localhost:${deadPort}/`, share: 'owner' },
      { slug: 'sub', url: `http://localhost:${appPort}/`, share: 'owner', subdomain: true },
    ];
    home = await mkdtemp(join(tmpdir(), 'cove-apps-'));
    ({ agent, agentId, workspaceId } = await startAgentWorkspace({
      url: test.url,
      owner,
      member: alice,
      token: TOKEN,
      home,
      templateName: 'apps',
      agent: { apps },
      prepareTemplate: (templateId) => owner.updateTemplate(templateId, { max_port_share_level: 'public' }),
    }));
    await alice.sharePort(workspaceId, { agent_name: 'main', port: publicPort, share_level: 'public' });
    await alice.sharePort(workspaceId, { agent_name: 'main', port: authenticatedPort, share_level: 'authenticated' });
  });
  after(async () => {
    await agent?.stop();
    await test?.close();
    for (const server of servers) server.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('serves the owner their app: status, headers, body, query and a streamed POST body', async () => {
    const page = await fetch(`${test.url}/@alice/dev.main/apps/web/hello/there?x=1&y=two`, { headers: aliceHeaders() });
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('x-app-name'), 'app');
    assert.equal(page.headers.get('set-cookie'), 'app_cookie=from-the-app; Path=/');
    const seen = (await page.json()) as Seen;
    assert.equal(seen.method, 'GET');
    // The app's URL path comes first, then what followed the slug, then the query as sent.
    assert.equal(seen.url, '/base/hello/there?x=1&y=two');
    assert.equal(seen.headers.host, `localhost:${appPort}`);
    assert.equal(seen.headers['x-forwarded-proto'], 'http');
    assert.equal(seen.headers['x-forwarded-host'], new URL(test.url).host);
    assert.match(String(seen.headers['x-forwarded-for']), /127\.0\.0\.1/);

    const posted = await fetch(`${test.url}/@alice/dev.main/apps/web/form`, {
      method: 'POST',
      headers: { ...aliceHeaders(), 'content-type': 'text/plain' },
      body: 'a'.repeat(200_000) + 'end',
    });
    assert.equal(posted.status, 200);
    const echoed = (await posted.json()) as Seen;
    assert.equal(echoed.method, 'POST');
    assert.equal(echoed.body.length, 200_003);
    assert.ok(echoed.body.endsWith('end'));

    // A body of unknown length arrives chunked, and goes on as it comes.
    const encoder = new TextEncoder();
    const chunked = await fetch(`${test.url}/@alice/dev.main/apps/web/stream`, {
      method: 'POST',
      headers: aliceHeaders(),
      duplex: 'half',
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode('first,'));
          controller.enqueue(encoder.encode('second'));
          controller.close();
        },
      }),
    });
    assert.equal(((await chunked.json()) as Seen).body, 'first,second');

    const head = await fetch(`${test.url}/@alice/dev.main/apps/web/`, { method: 'HEAD', headers: aliceHeaders() });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('x-app-name'), 'app');

    const teapot = await fetch(`${test.url}/%40alice/dev/apps/web/teapot`, { method: 'PUT', headers: aliceHeaders(), body: 'x' });
    assert.equal(teapot.status, 418, 'any method, `%40` for `@`, and the agent left out when there is one');
    assert.equal(((await teapot.json()) as Seen).url, '/base/teapot');
  });

  it("never shows the app Cove's session", async () => {
    const token = alice.token ?? '';
    const byCookie = await fetch(`${test.url}/@alice/dev.main/apps/web/?service_session_token=${token}&keep=1`, {
      headers: { cookie: `theme=dark; service_session_token=${token}; other=1`, 'Service-Session-Token': token },
    });
    assert.equal(byCookie.status, 200);
    const seen = (await byCookie.json()) as Seen;
    assert.equal(seen.headers['service-session-token'], undefined);
    assert.equal(seen.headers.cookie, 'theme=dark; other=1');
    assert.equal(seen.url, '/base/?keep=1');
    assert.ok(!JSON.stringify(seen).includes(token.split('-')[1] ?? token), 'the secret reached the app');
  });

  it('adds the slash after the slug, keeping the query', async () => {
    const answer = await fetch(`${test.url}/@alice/dev.main/apps/web?a=1&b=2`, { headers: aliceHeaders(), redirect: 'manual' });
    assert.equal(answer.status, 307);
    assert.equal(answer.headers.get('location'), '/@alice/dev.main/apps/web/?a=1&b=2');
  });

  it('hides owner apps from others, asks strangers to sign in, and serves public apps to anyone', async () => {
    const asBob = await fetch(`${test.url}/@alice/dev.main/apps/web/`, { headers: bobHeaders() });
    assert.equal(asBob.status, 404);
    assert.equal(typeof ((await asBob.json()) as { message: unknown }).message, 'string');

    const anonymous = await fetch(`${test.url}/@alice/dev.main/apps/web/`);
    assert.equal(anonymous.status, 401);
    const problem = (await anonymous.json()) as { message: string; detail: string };
    assert.match(problem.detail, /cove login/);
    assert.match(problem.detail, /Service-Session-Token/);

    const expired = await fetch(`${test.url}/@alice/dev.main/apps/web/`, {
      headers: { 'Service-Session-Token': 'abcdefghij-0123456789012345678901' },
    });
    assert.equal(expired.status, 401);

    // Shared beyond its owner, an app opens on its subdomain (as a path app, only for its owner).
    const open = await onSubdomain('open', '/');
    assert.equal(open.status, 200);
    // A bare `/` with no query gets the query of the app's URL.
    assert.equal((JSON.parse(open.body) as Seen).url, '/base/?from=app-url');
    const openWithBadToken = await onSubdomain('open', '/x', { 'Service-Session-Token': 'not-a-token' });
    assert.equal(openWithBadToken.status, 200, 'a public app does not care about a bad token');
    const ownPublic = await fetch(`${test.url}/@alice/dev.main/apps/open/`, { headers: aliceHeaders() });
    assert.equal(ownPublic.status, 200, 'its owner opens it by path too');

    assert.equal((await fetch(`${test.url}/@me/dev.main/apps/web/`, { headers: aliceHeaders() })).status, 404);
    assert.equal((await fetch(`${test.url}/@alice/nope.main/apps/web/`, { headers: bobHeaders() })).status, 404);
    assert.equal((await fetch(`${test.url}/@alice/nope.main/apps/web/`)).status, 401, 'strangers do not learn what exists');
    assert.equal((await fetch(`${test.url}/@alice/dev.other/apps/web/`, { headers: aliceHeaders() })).status, 404);
    assert.equal((await fetch(`${test.url}/@alice/dev.main/apps/nope/`, { headers: aliceHeaders() })).status, 404);
  });

  it('serves shared ports at the level they are shared with, and unshared ones to the owner only', async () => {
    // Shared ports open on their subdomains for others; by path only for the workspace's owner.
    const publicPage = await onSubdomain(String(publicPort), '/p?q=1');
    assert.equal(publicPage.status, 200);
    const seen = JSON.parse(publicPage.body) as Seen;
    assert.equal(seen.server, 'public-share');
    assert.equal(seen.url, '/p?q=1');

    const authenticated = String(authenticatedPort);
    assert.equal((await onSubdomain(authenticated, '/', bobHeaders())).status, 200);
    assert.equal((await onSubdomain(authenticated, '/', {}, 'POST')).status, 401);

    assert.equal((await onSubdomain(String(appPort), '/', bobHeaders())).status, 404);
    assert.equal((await fetch(`${test.url}/@alice/dev.main/apps/${appPort}/`, { headers: bobHeaders() })).status, 404);
    const own = await fetch(`${test.url}/@alice/dev.main/apps/${appPort}/direct`, { headers: aliceHeaders() });
    assert.equal(own.status, 200);
    assert.equal(((await own.json()) as Seen).url, '/direct');
    assert.equal(
      (await fetch(`${test.url}/@alice/dev.main/apps/8/`, { headers: aliceHeaders() })).status,
      404,
      'ports below 9 are never proxied',
    );

    // Unsharing takes effect at once.
    await alice.unsharePort(workspaceId, { agent_name: 'main', port: authenticatedPort });
    assert.equal((await onSubdomain(authenticated, '/', bobHeaders())).status, 404);
    await alice.sharePort(workspaceId, { agent_name: 'main', port: authenticatedPort, share_level: 'authenticated' });

    // Shared with the organization: its members get it, a user outside it does not.
    const carol = await createMember(test, 'carol');
    const carolId = (await carol.user('me')).id;
    await test.daemon.store.db.deleteFrom('organization_members').where('user_id', '=', carolId).execute();
    await test.daemon.store.invalidateSessions({ userId: carolId });
    const carolHeaders = { 'Service-Session-Token': carol.token ?? '' };
    assert.equal((await onSubdomain(authenticated, '/', carolHeaders)).status, 200);
    await alice.sharePort(workspaceId, { agent_name: 'main', port: authenticatedPort, share_level: 'organization' });
    assert.equal((await onSubdomain(authenticated, '/', bobHeaders())).status, 200);
    assert.equal((await onSubdomain(authenticated, '/', carolHeaders)).status, 404);
    assert.equal((await onSubdomain(authenticated, '/', {}, 'POST')).status, 401);
  });

  it('says when nothing listens on the app port', async () => {
    const answer = await fetch(`${test.url}/@alice/dev.main/apps/dead/`, { headers: aliceHeaders() });
    assert.equal(answer.status, 502);
    const problem = (await answer.json()) as { message: string; detail: string };
    assert.match(problem.message, new RegExp(`Nothing listens on port ${deadPort} in the workspace`));
    assert.equal(
      (await fetch(`${test.url}/@alice/dev.main/apps/dead/`, { headers: bobHeaders() })).status,
      404,
      'only after access is decided',
    );
  });

  it('carries WebSocket upgrades to the app', async () => {
    const socket = new WebSocket(`${test.url.replace(/^http/, 'ws')}/@alice/dev.main/apps/web/ws`, { headers: aliceHeaders() });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const reply = new Promise<string>((resolve) => socket.once('message', (data) => resolve(data.toString())));
    socket.send('hello over the relay');
    assert.equal(await reply, 'echo:hello over the relay');
    socket.close();
    await new Promise((resolve) => socket.once('close', resolve));

    const refused = new WebSocket(`${test.url.replace(/^http/, 'ws')}/@alice/dev.main/apps/web/ws`, { headers: bobHeaders() });
    const status = await new Promise<number>((resolve) => {
      refused.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      refused.once('open', () => resolve(101));
      refused.once('error', () => resolve(-1));
    });
    assert.equal(status, 404);
    refused.terminate();
  });

  it('records use of the workspace when its apps are used', async () => {
    test.clock.advance(5 * 60_000);
    const now = test.clock.now().toISOString();
    assert.notEqual((await alice.workspace(workspaceId)).last_used_at, now);
    assert.equal((await fetch(`${test.url}/@alice/dev.main/apps/web/`, { headers: aliceHeaders() })).status, 200);
    await eventually(async () => assert.equal((await alice.workspace(workspaceId)).last_used_at, now));
  });

  it('hands a session to a subdomain app host and serves the app there', async () => {
    // No session on the app host: off to the deployment to get one.
    const first = await send(test.url, '/page?q=1', { host: APP_HOST });
    assert.equal(first.status, 307);
    const toDeployment = new URL(String(first.headers.location));
    assert.equal(`${toDeployment.origin}${toDeployment.pathname}`, `${test.url}/api/v2/applications/auth-redirect`);
    assert.equal(toDeployment.searchParams.get('redirect_uri'), `http://${APP_HOST}/page?q=1`);
    assert.equal((await send(test.url, '/form', { host: APP_HOST, method: 'POST' })).status, 401, 'a post cannot follow the hand-off');

    // Signed in there, the deployment sends the browser back with an encrypted key.
    const handOff = await fetch(`${toDeployment.toString()}`, { headers: aliceHeaders(), redirect: 'manual' });
    assert.equal(handOff.status, 307);
    const back = new URL(String(handOff.headers.get('location')));
    assert.equal(back.host, APP_HOST);
    assert.equal(back.pathname, '/page');
    assert.equal(back.searchParams.get('q'), '1');
    const encrypted = back.searchParams.get('cove_application_connect_api_key') ?? '';
    assert.notEqual(encrypted, '');
    assert.ok(!encrypted.includes(alice.token?.split('-')[0] ?? 'none'), 'the key travels encrypted');

    // The app host turns it into its own cookie and drops it from the URL.
    const landing = await send(test.url, `${back.pathname}${back.search}`, { host: APP_HOST });
    assert.equal(landing.status, 307);
    assert.equal(landing.headers.location, '/page?q=1');
    const setCookie = String(landing.headers['set-cookie']?.[0] ?? '');
    assert.match(setCookie, /^cove_subdomain_app_session_token=[^;]+;/);
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Lax/);
    const cookie = setCookie.split(';')[0] ?? '';

    const page = await send(test.url, '/page?q=1', { host: APP_HOST, headers: { cookie: `${cookie}; mine=1` } });
    assert.equal(page.status, 200);
    const seen = JSON.parse(page.body) as Seen;
    assert.equal(seen.url, '/page?q=1');
    assert.equal(seen.headers.cookie, 'mine=1');
    assert.equal(seen.headers['x-forwarded-host'], APP_HOST);

    // The app key is good for apps only, and the same encrypted key does not work on another host.
    const appToken = decodeURIComponent(cookie.split('=')[1] ?? '');
    await expectApiError(alice.withToken(appToken).workspace(workspaceId), 403, /only be used to open workspace apps/);
    await expectApiError(alice.withToken(appToken).user('me'), 403);
    const elsewhere = await send(test.url, `/?cove_application_connect_api_key=${encodeURIComponent(encrypted)}`, {
      host: 'web--main--dev--alice.apps.test',
    });
    assert.equal(elsewhere.status, 400);
    const tampered = await send(test.url, `/?cove_application_connect_api_key=${encodeURIComponent(`${encrypted.slice(0, -4)}AAAA`)}`, {
      host: APP_HOST,
    });
    assert.equal(tampered.status, 400);

    // Bob goes through the same hand-off and finds nothing there; a public port needs no session.
    const bobHandOff = await fetch(toDeployment.toString(), { headers: bobHeaders(), redirect: 'manual' });
    const bobBack = new URL(String(bobHandOff.headers.get('location')));
    const bobLanding = await send(test.url, `${bobBack.pathname}${bobBack.search}`, { host: APP_HOST });
    const bobCookie = String(bobLanding.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
    assert.equal((await send(test.url, '/page', { host: APP_HOST, headers: { cookie: bobCookie } })).status, 404);
    const publicPort_ = await send(test.url, '/', { host: `${publicPort}--main--dev--alice.apps.test` });
    assert.equal(publicPort_.status, 200);
    assert.equal((JSON.parse(publicPort_.body) as Seen).server, 'public-share');
    // The CLI's header works on app hosts too.
    assert.equal((await send(test.url, '/', { host: 'web--dev--alice.apps.test', headers: aliceHeaders() })).status, 200);
    // A host under the wildcard that names no app is the deployment's own.
    assert.equal((await send(test.url, '/healthz', { host: 'cove.apps.test' })).status, 200);
  });

  it('sends a signed-out browser to sign in and back, where API clients get a 401', async () => {
    const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    const appPath = '/@alice/dev.main/apps/web/deep/page?x=1&y=a%20b';
    const toSignIn = await send(test.url, appPath, { headers: html });
    assert.equal(toSignIn.status, 303);
    const signIn = new URL(String(toSignIn.headers.location));
    assert.equal(`${signIn.origin}${signIn.pathname}`, `${test.url}/login`);
    assert.equal(signIn.searchParams.get('redirect'), appPath, 'a path on the deployment, as sign-in providers take it');
    // The sign-in page sets the session cookie; with it, the address asked for is the app.
    const back = await send(test.url, appPath, { headers: { ...html, cookie: `service_session_token=${alice.token ?? ''}` } });
    assert.equal(back.status, 200);
    assert.equal((JSON.parse(back.body) as Seen).url, '/base/deep/page?x=1&y=a%20b');
    // Not a page load: the 401 in the error shape.
    assert.equal((await send(test.url, appPath)).status, 401);
    assert.equal((await send(test.url, appPath, { headers: { accept: 'application/json' } })).status, 401);
    assert.equal((await send(test.url, appPath, { method: 'POST', headers: html })).status, 401);
    const expired = await send(test.url, appPath, {
      headers: { ...html, cookie: 'service_session_token=abcdefghij-0123456789012345678901' },
    });
    assert.equal(expired.status, 303, 'an expired session signs in anew');

    // A subdomain app: its host sends the browser to the hand-off, which sends it to sign in first.
    const toHandOff = await send(test.url, '/page?q=1', { host: APP_HOST, headers: html });
    assert.equal(toHandOff.status, 307);
    const handOff = new URL(String(toHandOff.headers.location));
    const handOffPath = `${handOff.pathname}${handOff.search}`;
    const handOffSignIn = await send(test.url, handOffPath, { headers: html });
    assert.equal(handOffSignIn.status, 303);
    const returnTo = new URL(String(new URL(String(handOffSignIn.headers.location)).searchParams.get('redirect')), test.url);
    assert.equal(returnTo.toString(), handOff.toString());
    assert.equal((await send(test.url, handOffPath)).status, 401, 'API clients keep the 401');
    // Signed in, the same address completes the hand-off to the app host.
    const completed = await send(test.url, handOffPath, { headers: { ...html, cookie: `service_session_token=${alice.token ?? ''}` } });
    assert.equal(completed.status, 307);
    const landing = new URL(String(completed.headers.location));
    assert.equal(landing.host, APP_HOST);
    assert.notEqual(landing.searchParams.get('cove_application_connect_api_key'), null);
  });

  it('checks where it hands sessions to', async () => {
    const authRedirect = (query: string) =>
      fetch(`${test.url}/api/v2/applications/auth-redirect${query}`, { headers: aliceHeaders(), redirect: 'manual' });
    const missing = await authRedirect('');
    assert.equal(missing.status, 400);
    assert.equal(((await missing.json()) as { message: string }).message, 'Missing redirect_uri query parameter.');
    const invalid = await authRedirect('?redirect_uri=not%20a%20url');
    assert.equal(invalid.status, 400);
    assert.equal(((await invalid.json()) as { message: string }).message, 'Invalid redirect_uri query parameter.');
    const elsewhere = await authRedirect(`?redirect_uri=${encodeURIComponent('http://evil.example.com/steal')}`);
    assert.equal(elsewhere.status, 400);
    assert.equal(((await elsewhere.json()) as { message: string }).message, 'Invalid redirect_uri.');
    assert.equal(
      (
        await fetch(`${test.url}/api/v2/applications/auth-redirect?redirect_uri=${encodeURIComponent(`http://${APP_HOST}/`)}`, {
          redirect: 'manual',
        })
      ).status,
      401,
    );
  });

  it('tells signed-in users the app host and each subdomain app its name', async () => {
    const { host } = await alice.request<{ host: string }>('GET', '/applications/host');
    assert.equal(host, `*.apps.test:${new URL(test.url).port}`);
    await expectApiError(test.anonymous.request('GET', '/applications/host'), 401);
    const apps = (await alice.workspaceAgent(agentId)).apps;
    assert.equal(apps.find((a) => a.slug === 'sub')?.subdomain_name, 'sub--main--dev--alice');
    assert.equal(
      apps.find((a) => a.slug === 'web')?.subdomain_name,
      undefined,
      'left out, as the reference leaves an empty subdomain name out',
    );
    const inWorkspace = (await alice.workspace(workspaceId)).latest_build.resources.flatMap((r) => r.agents)[0]?.apps;
    assert.equal(inWorkspace?.find((a) => a.slug === 'sub')?.subdomain_name, 'sub--main--dev--alice');
  });

  it('validates usage reports', async () => {
    await alice.reportWorkspaceUsage(workspaceId);
    await alice.reportWorkspaceUsage(workspaceId, { agent_id: agentId, app_name: 'vscode' });
    await expectApiError(alice.reportWorkspaceUsage(workspaceId, { app_name: 'ssh' }), 400, /agent_id.*must be set when app_name is set/);
    await expectApiError(alice.reportWorkspaceUsage(workspaceId, { agent_id: agentId }), 400, /app_name.*must be set when agent_id is set/);
    await expectApiError(alice.reportWorkspaceUsage(workspaceId, { agent_id: agentId, app_name: 'emacs' }), 400, /app_name/);
    await expectApiError(
      alice.reportWorkspaceUsage(workspaceId, { agent_id: '5f0c4a1e-8b1d-4c7e-9a2b-3d4e5f6a7b8c', app_name: 'ssh' }),
      404,
    );
    await expectApiError(bob.reportWorkspaceUsage(workspaceId), 404);

    test.clock.advance(60_000);
    const now = test.clock.now().toISOString();
    await alice.reportWorkspaceUsage(workspaceId, { agent_id: agentId, app_name: 'reconnecting-pty' });
    assert.equal((await alice.workspace(workspaceId)).last_used_at, now);
  });
});

describe('path-based apps turned off', () => {
  it('refuses them with the reason, and serves the API as usual', async () => {
    const test = await startTestDaemon({ flags: { disablePathApps: 'true' } });
    try {
      const answer = await fetch(`${test.url}/@alice/dev.main/apps/web/`);
      assert.equal(answer.status, 403);
      assert.match(((await answer.json()) as { message: string }).message, /Path-based applications are disabled/);
      assert.equal((await fetch(`${test.url}/api/v2/buildinfo`)).status, 200);
    } finally {
      await test.close();
    }
  });
});
