import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { readProtocolMessage } from '../../src/api/protocol-message.js';
import { createTar } from '../../src/lib/archive/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { Browser } from '../helpers/browser.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { signInAtProvider, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const APP_HOST = 'web--main--dev--owner.apps.test';

/** A raw request, so a test sees exactly what the daemon answers (status, Location) and sets any Host. */
function send(
  base: string,
  path: string,
  init: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: url.hostname, port: url.port, path, method: init.method ?? 'GET', headers: init.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    request.on('error', reject);
    request.end(init.body);
  });
}

function nested(depth: number, inner = ''): string {
  return `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
}

describe('hardening: JSON depth, redirect schemes, app URL schemes', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  const json = (token?: string) => ({ 'content-type': 'application/json', ...(token ? { 'service-session-token': token } : {}) });

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1', wildcardAccessUrl: '*.apps.test' } });
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('refuses JSON bodies nested deeper than 64 levels with a 400 in the error shape, never a 500', async () => {
    const deepBodies = [
      nested(5000),
      `{"email":"a@example.com","username":"a","password":${nested(5000)}}`,
      `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`,
      nested(65),
    ];
    for (const body of deepBodies) {
      // Anonymous (the first-user form) and signed in: the limit is on every JSON body.
      for (const [path, token] of [
        ['/api/v2/users/first', undefined],
        ['/api/v2/csp/reports', owner.token],
        ['/api/v2/users/me/keys/tokens', owner.token],
      ] as const) {
        const answer = await send(test.url, path, { method: 'POST', headers: json(token), body });
        assert.equal(answer.status, 400, `${path} ${body.slice(0, 40)}: ${answer.body}`);
        assert.deepEqual(JSON.parse(answer.body), {
          message: 'The request body nests deeper than 64 levels.',
          detail: 'Arrays and objects in a JSON body may be nested at most 64 levels deep.',
        });
      }
    }
  });

  it('still parses a body nested 64 deep, and brackets inside strings do not count', async () => {
    // 64 levels: the body's object, the report, and 62 arrays.
    const report = `{"csp-report":{"blocked":${nested(62, '"x"')},"text":"${'['.repeat(500)}"}}`;
    const answer = await send(test.url, '/api/v2/csp/reports', { method: 'POST', headers: json(owner.token), body: report });
    assert.equal(answer.status, 200, answer.body);
    // 64 levels of arrays where an object belongs: parsed, then refused by the schema, as before.
    const first = await send(test.url, '/api/v2/users/first', { method: 'POST', headers: json(), body: nested(64) });
    assert.equal(first.status, 400);
    assert.equal((JSON.parse(first.body) as { message: string }).message, 'Request body must be valid JSON.');
    const wrong = await send(test.url, '/api/v2/users/first', {
      method: 'POST',
      headers: json(),
      body: `{"email":"a@example.com","username":"a","password":${nested(63)}}`,
    });
    assert.equal(wrong.status, 400);
    assert.equal((JSON.parse(wrong.body) as { message: string }).message, 'Validation failed.');
  });

  it('refuses WebSocket protocol messages nested deeper than 64 levels before reading them', () => {
    const schema = Type.Object({ type: Type.String() });
    assert.deepEqual(readProtocolMessage(schema, `{"type":"x","extra":${nested(5000)}}`), {
      problem: 'a message nests deeper than 64 levels',
    });
    assert.deepEqual(readProtocolMessage(schema, `{"type":"x","extra":${nested(63)},"text":"${'['.repeat(100)}\\"["}`), {
      message: { type: 'x', extra: JSON.parse(nested(63)) as unknown, text: `${'['.repeat(100)}"[` },
    });
  });

  it('hands app sessions only to http and https URLs: javascript:, data: and other schemes are refused', async () => {
    for (const uri of [
      `javascript://${APP_HOST}/%0aalert(document.cookie)`,
      `JavaScript://${APP_HOST}/%0aalert(1)`,
      `java\tscript://${APP_HOST}/%0aalert(1)`,
      `data://${APP_HOST}/text/html,<script>alert(1)</script>`,
      `vbscript://${APP_HOST}/msgbox`,
      `ftp://${APP_HOST}/file`,
      `ws://${APP_HOST}/socket`,
    ]) {
      const answer = await send(test.url, `/api/v2/applications/auth-redirect?redirect_uri=${encodeURIComponent(uri)}`, {
        headers: { 'service-session-token': owner.token ?? '', accept: 'text/html' },
      });
      assert.equal(answer.status, 400, `${uri}: ${answer.body}`);
      assert.equal(answer.headers.location, undefined, uri);
      const problem = JSON.parse(answer.body) as { message: string; detail: string };
      assert.equal(problem.message, 'Invalid redirect_uri.');
      assert.match(problem.detail, /Only http and https URLs/);
    }
    // A web URL on the app host is still handed its key, on the access URL's scheme.
    const good = await send(test.url, `/api/v2/applications/auth-redirect?redirect_uri=${encodeURIComponent(`https://${APP_HOST}/x`)}`, {
      headers: { 'service-session-token': owner.token ?? '' },
    });
    assert.equal(good.status, 307, good.body);
    assert.match(String(good.headers.location), new RegExp(`^http://${APP_HOST.replaceAll('.', '\\.')}/x\\?`));
  });

  it('sends the browser back from the app hand-off to a path on the app host only', async () => {
    // Signed in at the deployment, the browser follows the hand-off for a URL whose path begins
    // with two slashes: the app host's landing must not turn that into a link to another site.
    const startAt = `http://${APP_HOST}//evil.example/steal?q=1`;
    const handOff = await send(test.url, `/api/v2/applications/auth-redirect?redirect_uri=${encodeURIComponent(startAt)}`, {
      headers: { 'service-session-token': owner.token ?? '' },
    });
    assert.equal(handOff.status, 307, handOff.body);
    const back = new URL(String(handOff.headers.location));
    const landing = await send(test.url, `${back.pathname}${back.search}`, { headers: { host: APP_HOST } });
    assert.equal(landing.status, 307, landing.body);
    const location = String(landing.headers.location);
    assert.equal(new URL(location, `http://${APP_HOST}/`).host, APP_HOST, location);
  });

  it('refuses an import whose app URL is javascript:, data: or another unsafe scheme, naming the app and the scheme', async () => {
    const cases: readonly { readonly app: Record<string, unknown>; readonly error: RegExp }[] = [
      { app: { slug: 'evil', url: 'javascript:alert(document.cookie)', external: true }, error: /app "evil".*javascript: scheme/ },
      { app: { slug: 'evil', url: 'java\nscript:alert(1)', external: true }, error: /app "evil".*javascript: scheme/ },
      { app: { slug: 'inline', url: 'data:text/html,<script>alert(1)</script>', external: true }, error: /app "inline".*data: scheme/ },
      { app: { slug: 'vb', url: 'VBScript:msgbox(1)' }, error: /app "vb".*vbscript: scheme/ },
      { app: { slug: 'proxied', url: 'vscode://open' }, error: /app "proxied".*vscode: scheme.*http or https/ },
    ];
    for (const [index, { app, error }] of cases.entries()) {
      const echo = { apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', apps: [app] }] }] } };
      const { id } = await owner.uploadFile(await createTar({ 'echo.json': JSON.stringify(echo), [`case-${index}`]: '' }));
      const version = await owner.createTemplateVersion('default', { file_id: id });
      await owner.followTemplateVersionLogs(version.id, () => undefined);
      const stored = await owner.templateVersion(version.id);
      assert.equal(stored.job.status, 'failed', `${String(app['url'])}: ${JSON.stringify(stored.job)}`);
      assert.match(stored.job.error ?? '', error);
      assert.match(stored.job.error ?? '', /agent "main"/);
    }
  });

  it('refuses a native template.yaml whose external app links to javascript:', async () => {
    const yaml = [
      'resources:',
      '  - name: box',
      '    type: process',
      '    agents:',
      '      - name: main',
      '        apps:',
      '          - slug: evil',
      "            url: \"javascript:fetch('/api/v2/users/me/keys',{method:'POST'})\"",
      '            external: true',
      '',
    ].join('\n');
    const { id } = await owner.uploadFile(await createTar({ 'template.yaml': yaml }));
    const version = await owner.createTemplateVersion('default', { file_id: id });
    await owner.followTemplateVersionLogs(version.id, () => undefined);
    const stored = await owner.templateVersion(version.id);
    assert.equal(stored.job.status, 'failed', JSON.stringify(stored.job));
    assert.match(stored.job.error ?? '', /app "evil".*javascript: scheme/);
  });

  it('keeps http(s) apps, and external links to desktop applications', async () => {
    const apps = [
      { slug: 'web', url: 'http://localhost:8080' },
      { slug: 'docs', url: 'https://example.com/handbook', external: true },
      { slug: 'editor', url: 'vscode://cove.cove-remote/open?folder=/home/dev', external: true },
      { slug: 'shell', command: 'bash' },
    ];
    const echo = { apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', apps }] }] } };
    const { version } = await createEchoTemplate(owner, 'safe-apps', echo);
    assert.equal((await owner.templateVersion(version.id)).job.status, 'succeeded');
  });

  it('fails a build whose app URL turns out unsafe, as it fails the import', async () => {
    // The import plans with a safe URL; the build (another transition) yields a javascript: one.
    const agent = (url: string) => ({ name: 'main', apps: [{ slug: 'later', url, external: true }] });
    const echo = {
      plan: { resources: [{ name: 'box', type: 'echo', agents: [agent('https://example.com')] }] },
      apply: {
        resources: [{ name: 'box', type: 'echo', agents: [agent('https://example.com')] }],
        start: { resources: [{ name: 'box', type: 'echo', agents: [agent('javascript:alert(1)')] }] },
      },
    };
    const { template } = await createEchoTemplate(owner, 'late-unsafe', echo);
    const workspace = await owner.createWorkspace('me', { template_id: template.id, name: 'late' });
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    const build = await owner.workspaceBuild(workspace.latest_build.id);
    assert.equal(build.job.status, 'failed');
    assert.match(build.job.error ?? '', /app "later".*javascript: scheme/);
    assert.deepEqual(
      build.resources.flatMap((resource) => resource.agents ?? []),
      [],
    );
  });
});

describe('hardening: where a sign-in returns to', () => {
  const CALLBACK = '/api/v2/users/oidc/callback';
  let provider: TestOidcProvider;
  let test: TestDaemon;
  before(async () => {
    provider = await startOidcProvider();
    test = await startTestDaemon({
      flags: { oidcIssuerUrl: provider.issuer, oidcClientId: provider.clientId, oidcClientSecret: provider.clientSecret },
    });
    await provider.allowRedirect(`${test.url}${CALLBACK}`);
    await createOwner(test);
    provider.accounts.set('alice-sub', { email: 'alice@example.com', preferredUsername: 'alice' });
  });
  after(async () => {
    await test.close();
    await provider.close();
  });

  it('never returns to a javascript:, data: or other non-path redirect after an OIDC sign-in', async () => {
    for (const redirect of [
      'javascript:alert(document.cookie)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox',
      '//evil.example/',
    ]) {
      const browser = new Browser();
      const start = await browser.request(`${test.url}${CALLBACK}?redirect=${encodeURIComponent(redirect)}`);
      assert.equal(start.status, 307, start.body);
      const back = await signInAtProvider(browser, start.location ?? '', 'alice-sub');
      const final = await browser.request(back.location ?? '');
      assert.equal(final.status, 307, final.body);
      assert.equal(final.location, `${test.url}/`, redirect);
    }
  });
});
