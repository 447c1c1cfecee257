import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket, WebSocketServer } from 'ws';
import type { AgentHandle } from '../../src/agent/index.js';
import type { RawValues } from '../../src/domain/deployment-options.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

// Path apps (`/@owner/workspace.agent/apps/slug/`) run on the deployment's own origin, where a
// script in the page acts with the visitor's dashboard session. These tests are the attack: others
// than the workspace's owner open its path apps and shared ports, and are refused unless the
// operator opts into danger; subdomain apps keep their sharing levels.

const APPS = [
  { slug: 'own', share: 'owner' },
  { slug: 'authn', share: 'authenticated' },
  { slug: 'org', share: 'organization' },
  { slug: 'pub', share: 'public' },
] as const;

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** One request, redirects not followed; `host` sets the `Host` header (fetch will not). */
function send(base: string, path: string, init: { host?: string; token?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const url = new URL(base);
  const headers: Record<string, string> = { ...init.headers };
  if (init.host) headers['host'] = init.host;
  if (init.token) headers['service-session-token'] = init.token;
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

/** A server "inside the workspace" that names itself in every answer, and echoes WebSocket messages. */
async function startServer(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(`served by ${name}`);
  });
  new WebSocketServer({ server }).on('connection', (socket) => socket.on('message', (data) => socket.send(data.toString())));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A daemon with alice's workspace: four apps, one per sharing level, and a port shared with everyone signed in. */
interface Deployment {
  readonly test: TestDaemon;
  /** The site owner. */
  readonly owner: CoveClient;
  readonly alice: CoveClient;
  readonly bob: CoveClient;
  /** Opens `/@alice/dev.main/apps/<slugOrPort>/` as `who` (a token, or nobody). */
  path(slugOrPort: string, token?: string, headers?: Record<string, string>): Promise<Answer>;
  /** Opens the same app on its subdomain under `*.apps.test`. */
  subdomain(slugOrPort: string, token?: string): Promise<Answer>;
  close(): Promise<void>;
}

async function startDeployment(flags: RawValues, appPort: number, sharedPort: number): Promise<Deployment> {
  const test = await startTestDaemon({ flags: { provisionerDaemons: '1', ...flags } });
  let agent: AgentHandle | undefined;
  const home = await mkdtemp(join(tmpdir(), 'cove-path-app-boundary-'));
  try {
    const owner = await createOwner(test);
    const alice = await createMember(test, 'alice');
    const bob = await createMember(test, 'bob');
    const started = await startAgentWorkspace({
      url: test.url,
      owner,
      member: alice,
      token: 'agent-token-for-path-app-boundary',
      home,
      templateName: 'boundary',
      agent: { apps: APPS.map((app) => ({ ...app, url: `http://localhost:${appPort}/` })) },
      prepareTemplate: (templateId) => owner.updateTemplate(templateId, { max_port_share_level: 'public' }),
    });
    agent = started.agent;
    await alice.sharePort(started.workspaceId, { agent_name: 'main', port: sharedPort, share_level: 'authenticated' });
    return {
      test,
      owner,
      alice,
      bob,
      path: (slugOrPort, token, headers) =>
        send(test.url, `/@alice/dev.main/apps/${slugOrPort}/`, { ...(token ? { token } : {}), ...(headers ? { headers } : {}) }),
      subdomain: (slugOrPort, token) =>
        send(test.url, '/', { host: `${slugOrPort}--main--dev--alice.apps.test`, ...(token ? { token } : {}) }),
      async close() {
        await agent?.stop();
        await test.close();
        await rm(home, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await agent?.stop();
    await test.close();
    await rm(home, { recursive: true, force: true });
    throw error;
  }
}

/** The WebSocket upgrade's answer: 101 when it opened, the refusal's status otherwise. */
function upgradeStatus(url: string, token: string): Promise<number> {
  const socket = new WebSocket(url, { headers: { 'service-session-token': token } });
  return new Promise<number>((resolve) => {
    socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.once('open', () => resolve(101));
    socket.once('error', () => resolve(-1));
  }).finally(() => socket.terminate());
}

describe('path apps and path-form port shares are their owner’s only', () => {
  const servers: Server[] = [];
  let appPort = 0;
  let sharedPort = 0;
  before(async () => {
    const app = await startServer('app');
    const shared = await startServer('shared-port');
    servers.push(app.server, shared.server);
    appPort = app.port;
    sharedPort = shared.port;
  });
  after(() => {
    for (const server of servers) server.close();
  });

  describe('by default', () => {
    let d: Deployment;
    before(async () => {
      d = await startDeployment({ wildcardAccessUrl: '*.apps.test' }, appPort, sharedPort);
    });
    after(() => d?.close());

    it('refuses a member another member’s shared path apps and shared port, saying where to open them', async () => {
      const bob = d.bob.token ?? '';
      for (const slug of ['authn', 'org', 'pub', String(sharedPort)]) {
        const answer = await d.path(slug, bob);
        assert.equal(answer.status, 403, `bob opened alice's ${slug} by path`);
        assert.doesNotMatch(answer.body, /served by/);
        const problem = JSON.parse(answer.body) as { message: string; detail: string; validations?: unknown[] };
        assert.equal(problem.message, "Only the workspace's owner may open its apps by path.");
        const port = new URL(d.test.url).port;
        assert.ok(problem.detail.includes(`http://${slug}--main--dev--alice.apps.test:${port}/`), problem.detail);
      }
      // Not shared with bob at all: the same 404 as an app that does not exist.
      assert.equal((await d.path('own', bob)).status, 404);
      assert.equal((await d.path('nope', bob)).status, 404);
      // The browser way: the session cookie, a page load.
      const page = await d.path('pub', undefined, { cookie: `service_session_token=${bob}`, accept: 'text/html' });
      assert.equal(page.status, 403);
      // WebSockets go through the same door.
      const ws = `${d.test.url.replace(/^http/, 'ws')}/@alice/dev.main/apps/authn/`;
      assert.equal(await upgradeStatus(ws, bob), 403);
    });

    it('refuses the site owner every path app of another user, public ones included', async () => {
      const owner = d.owner.token ?? '';
      for (const slug of ['own', 'authn', 'pub', String(sharedPort)]) {
        assert.equal((await d.path(slug, owner)).status, 403, `the site owner opened alice's ${slug} by path`);
      }
    });

    it('asks strangers to sign in, even for a public path app, and tells them nothing more', async () => {
      const unknown = await d.path('nope');
      for (const slug of ['pub', 'own', String(sharedPort)]) {
        const answer = await d.path(slug);
        assert.equal(answer.status, 401, slug);
        assert.equal(answer.body, unknown.body);
      }
      const page = await d.path('pub', undefined, { accept: 'text/html' });
      assert.equal(page.status, 303);
      assert.match(String(page.headers.location), /\/login\?redirect=/);
    });

    it('serves the owner every app of their own by path', async () => {
      const alice = d.alice.token ?? '';
      for (const slug of ['own', 'authn', 'org', 'pub']) {
        const answer = await d.path(slug, alice);
        assert.equal(answer.status, 200, slug);
        assert.equal(answer.body, 'served by app');
      }
      assert.equal((await d.path(String(sharedPort), alice)).body, 'served by shared-port');
      const ws = `${d.test.url.replace(/^http/, 'ws')}/@alice/dev.main/apps/own/`;
      assert.equal(await upgradeStatus(ws, alice), 101);
    });

    it('keeps the sharing levels of subdomain apps', async () => {
      const bob = d.bob.token ?? '';
      for (const slug of ['authn', 'org', 'pub', String(sharedPort)]) assert.equal((await d.subdomain(slug, bob)).status, 200, slug);
      assert.equal((await d.subdomain('own', bob)).status, 404);
      assert.equal((await d.subdomain('pub')).status, 200);
      for (const slug of ['own', 'authn', 'pub']) assert.equal((await d.subdomain(slug, d.owner.token ?? '')).status, 200, slug);
    });
  });

  describe('with --dangerous-allow-path-app-sharing', () => {
    let d: Deployment;
    before(async () => {
      d = await startDeployment({ dangerousAllowPathAppSharing: 'true' }, appPort, sharedPort);
    });
    after(() => d?.close());

    it('applies the sharing levels to path apps, as before', async () => {
      const bob = d.bob.token ?? '';
      for (const slug of ['authn', 'org', 'pub']) assert.equal((await d.path(slug, bob)).body, 'served by app', slug);
      assert.equal((await d.path(String(sharedPort), bob)).body, 'served by shared-port');
      assert.equal((await d.path('pub')).status, 200, 'a public path app opens for anyone');
      assert.equal((await d.path('own', bob)).status, 404);
      assert.equal((await d.path('authn', d.owner.token ?? '')).status, 200, 'the site owner is signed in, like everyone');
    });

    it('still refuses the site owner an app shared with its owner only, and names the option that would open it', async () => {
      const answer = await d.path('own', d.owner.token ?? '');
      assert.equal(answer.status, 403);
      const { detail } = JSON.parse(answer.body) as { detail: string };
      assert.match(detail, /--wildcard-access-url/);
      assert.match(detail, /--dangerous-allow-path-app-site-owner-access/);
    });
  });

  describe('with --dangerous-allow-path-app-site-owner-access', () => {
    let d: Deployment;
    before(async () => {
      d = await startDeployment({ dangerousAllowPathAppSiteOwnerAccess: 'true' }, appPort, sharedPort);
    });
    after(() => d?.close());

    it('lets the site owner open every path app, as before', async () => {
      const owner = d.owner.token ?? '';
      for (const slug of ['own', 'authn', 'pub']) assert.equal((await d.path(slug, owner)).body, 'served by app', slug);
      assert.equal((await d.path(String(sharedPort), owner)).body, 'served by shared-port');
    });

    it('still refuses members and strangers, and names the sharing option to a member', async () => {
      const answer = await d.path('authn', d.bob.token ?? '');
      assert.equal(answer.status, 403);
      const { detail } = JSON.parse(answer.body) as { detail: string };
      assert.match(detail, /--wildcard-access-url/);
      assert.match(detail, /--dangerous-allow-path-app-sharing/);
      assert.equal((await d.path('pub')).status, 401);
    });
  });
});
