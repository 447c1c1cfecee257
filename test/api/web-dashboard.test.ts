import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { DASHBOARD_CSP, ICON_CSP } from '../../src/api/dashboard/web-dashboard.js';
import { SESSION_TOKEN_HEADER } from '../../src/sdk/client-core.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const INDEX = '<!doctype html><title>fake dashboard</title><script type="module" src="/assets/main-AB12CD34.js"></script>';
const SCRIPT = 'console.log("the dashboard");';
const STYLE = 'body { color: black; }';

/** A dashboard build as scripts/build.mjs lays it out, small enough to check byte for byte. */
function fakeBuild(): string {
  const root = mkdtempSync(join(tmpdir(), 'cove-web-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), INDEX);
  writeFileSync(join(root, 'assets', 'main-AB12CD34.js'), SCRIPT);
  writeFileSync(join(root, 'assets', 'main-EF56AB78.css'), STYLE);
  writeFileSync(join(root, 'assets', 'font-0A1B2C3D.woff2'), Buffer.from([0x77, 0x4f, 0x46, 0x32]));
  // Beside the build: nothing of it may be reached through /assets/.
  writeFileSync(join(root, 'secret.txt'), 'not to be served');
  return root;
}

/** A GET whose answer is kept as the bytes sent, still compressed if it was. */
function rawGetBytes(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** A request with its path sent as written (fetch would resolve `..`), never following redirects. */
async function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const answer = await rawGetBytes(base, path, headers);
  return { status: answer.status, body: answer.body.toString('utf8') };
}

function assertDashboardHeaders(answer: Response, what: string): void {
  assert.equal(answer.headers.get('content-security-policy'), DASHBOARD_CSP, what);
  assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(answer.headers.get('referrer-policy'), 'same-origin', what);
}

describe('the web dashboard', () => {
  let test: TestDaemon;
  let build: string;
  before(async () => {
    build = fakeBuild();
    test = await startTestDaemon({ dashboardDirectory: build });
  });
  after(async () => {
    await test?.close();
    rmSync(build, { recursive: true, force: true });
  });

  it('answers its page on every dashboard path, never cached without asking', async () => {
    const pages = [
      '/',
      '/login?redirect=%2Fworkspaces',
      '/setup',
      '/workspaces',
      '/workspaces/new',
      '/templates',
      '/templates/docker/versions',
      '/deployment',
      '/deployment/users',
      '/@admin/dev',
      '/@admin/dev.main/terminal',
      '/@admin/dev/terminal',
      '/external-auth/github',
      '/external-auth/github?redirected=true&popup=true',
      '/settings/external-auth',
    ];
    for (const path of pages) {
      const answer = await fetch(`${test.url}${path}`, { headers: { accept: 'text/html' } });
      assert.equal(answer.status, 200, path);
      assert.equal(answer.headers.get('content-type'), 'text/html; charset=utf-8', path);
      assert.equal(answer.headers.get('cache-control'), 'no-cache', path);
      assertDashboardHeaders(answer, path);
      assert.equal(await answer.text(), INDEX, path);
    }
    const head = await fetch(`${test.url}/workspaces`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'text/html; charset=utf-8');
  });

  it('serves hashed assets with their types, kept for a year', async () => {
    const cases: Array<[string, string, string | undefined]> = [
      ['/assets/main-AB12CD34.js', 'text/javascript; charset=utf-8', SCRIPT],
      ['/assets/main-EF56AB78.css', 'text/css; charset=utf-8', STYLE],
      ['/assets/font-0A1B2C3D.woff2', 'font/woff2', undefined],
    ];
    for (const [path, type, body] of cases) {
      const answer = await fetch(`${test.url}${path}`);
      assert.equal(answer.status, 200, path);
      assert.equal(answer.headers.get('content-type'), type, path);
      assert.equal(answer.headers.get('cache-control'), 'public, max-age=31536000, immutable', path);
      assertDashboardHeaders(answer, path);
      if (body !== undefined) assert.equal(await answer.text(), body, path);
      else assert.equal((await answer.arrayBuffer()).byteLength, 4);
    }
  });

  it('compresses text assets for browsers that take it, and leaves the rest as they are', async () => {
    const cases: Array<[string, string | undefined, string | undefined]> = [
      ['/assets/main-AB12CD34.js', 'gzip, deflate, br', 'br'],
      ['/assets/main-AB12CD34.js', 'gzip', 'gzip'],
      ['/assets/main-AB12CD34.js', 'br;q=0, gzip', 'gzip'],
      ['/assets/main-AB12CD34.js', undefined, undefined],
      ['/assets/font-0A1B2C3D.woff2', 'gzip, br', undefined],
    ];
    for (const [path, accept, expected] of cases) {
      const answer = await rawGetBytes(test.url, path, accept === undefined ? {} : { 'accept-encoding': accept });
      const what = `${path} with ${accept ?? 'no accept-encoding'}`;
      assert.equal(answer.status, 200, what);
      assert.equal(answer.headers['content-encoding'], expected, what);
      if (path.endsWith('.js')) {
        assert.equal(answer.headers['vary'], 'accept-encoding', what);
        const plain = expected === 'br' ? brotliDecompressSync(answer.body) : expected === 'gzip' ? gunzipSync(answer.body) : answer.body;
        assert.equal(plain.toString('utf8'), SCRIPT, what);
      }
    }
  });

  it('answers unknown assets and paths out of the assets directory with a 404 in the error shape', async () => {
    const unknown = await fetch(`${test.url}/assets/main-00000000.js`);
    assert.equal(unknown.status, 404);
    assertDashboardHeaders(unknown, 'unknown asset');
    assert.equal(typeof ((await unknown.json()) as { message: unknown }).message, 'string');
    for (const path of [
      '/assets/../secret.txt',
      '/assets/%2e%2e/secret.txt',
      '/assets/%2E%2E%2Fsecret.txt',
      '/assets/..%2fsecret.txt',
      '/assets/.%2e/index.html',
      '/assets/',
      '/assets/%00main-AB12CD34.js',
      '/assets/..%5csecret.txt',
    ]) {
      const answer = await rawGet(test.url, path);
      assert.ok(answer.status === 404 || answer.status === 400, `${path}: ${answer.status}`);
      assert.ok(!answer.body.includes('not to be served'), path);
      assert.equal(typeof (JSON.parse(answer.body) as { message: unknown }).message, 'string', path);
    }
  });

  it('serves the icons the built-in templates name, as images that run nothing', async () => {
    for (const name of ['terminal', 'docker', 'ubuntu', 'debian', 'fedora', 'vm', 'code', 'git', 'python', 'node', 'go', 'rust']) {
      const answer = await fetch(`${test.url}/icon/${name}.svg`);
      assert.equal(answer.status, 200, name);
      assert.equal(answer.headers.get('content-type'), 'image/svg+xml', name);
      assert.equal(answer.headers.get('content-security-policy'), ICON_CSP, name);
      assert.match(answer.headers.get('cache-control') ?? '', /^public, max-age=\d{6,}/, name);
      const svg = await answer.text();
      assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]* viewBox="0 0 24 24"/, name);
      assert.doesNotMatch(svg, /currentColor|<script/i, name);
    }
    for (const path of ['/icon/nope.svg', '/icon/terminal.png', '/icon/..%2fdashboard-files.ts', '/icon/Terminal.svg']) {
      const answer = await rawGet(test.url, path);
      assert.equal(answer.status, 404, path);
      assert.equal(typeof (JSON.parse(answer.body) as { message: unknown }).message, 'string', path);
    }
  });

  it('leaves the API and the other pages as they were', async () => {
    const unknown = await fetch(`${test.url}/api/v2/no-such-thing`, { headers: { accept: 'text/html' } });
    assert.equal(unknown.status, 404);
    assert.match(unknown.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(unknown.headers.get('content-security-policy'), null);
    assert.equal(((await unknown.json()) as { message: string }).message, 'Route not found.');
    assert.equal((await fetch(`${test.url}/api/v2/buildinfo`)).status, 200);
    assert.equal(await (await fetch(`${test.url}/healthz`)).text(), 'OK');
    const cliAuth = await fetch(`${test.url}/cli-auth`, { headers: { accept: 'text/html' } });
    assert.equal(cliAuth.status, 200);
    assert.doesNotMatch(await cliAuth.text(), /fake dashboard/);
    const stray = await fetch(`${test.url}/no-such-page`);
    assert.equal(stray.status, 404);
    assert.match(stray.headers.get('content-type') ?? '', /^application\/json/);
  });

  it('answers an unknown address loaded in a browser with its page, as a 404, so that the page says so', async () => {
    for (const path of ['/no-such-page', '/settings-typo/account?x=1', '/workspace']) {
      const answer = await fetch(`${test.url}${path}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      assert.equal(answer.status, 404, path);
      assert.equal(answer.headers.get('content-type'), 'text/html; charset=utf-8', path);
      assertDashboardHeaders(answer, path);
      assert.equal(await answer.text(), INDEX, path);
    }
    // A write to an unknown address is never a page.
    const posted = await fetch(`${test.url}/no-such-page`, { method: 'POST', headers: { accept: 'text/html' } });
    assert.equal(posted.status, 404);
    assert.match(posted.headers.get('content-type') ?? '', /^application\/json/);
  });

  it("answers the favicon browsers ask for with the dashboard's icon", async () => {
    const favicon = await fetch(`${test.url}/favicon.ico`, { redirect: 'manual' });
    assert.equal(favicon.status, 301);
    assert.equal(favicon.headers.get('location'), '/icon/cove.svg');
    const icon = await fetch(`${test.url}/icon/cove.svg`);
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
  });

  it("compresses the API's JSON answers over 1 KB for clients that take it, and leaves small ones", async () => {
    const owner = await createOwner(test);
    const token = { [SESSION_TOKEN_HEADER]: owner.token ?? '' };
    const plain = await rawGetBytes(test.url, '/api/v2/deployment/config', token);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-encoding'], undefined, 'a client that did not ask gets it as it is');
    assert.ok(plain.body.length > 1024, `the config is ${plain.body.length} bytes`);
    const brotli = await rawGetBytes(test.url, '/api/v2/deployment/config', { ...token, 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(brotli.headers['content-encoding'], 'br');
    assert.ok(brotli.body.length < plain.body.length / 2, `${brotli.body.length} of ${plain.body.length} bytes`);
    assert.deepEqual(JSON.parse(brotliDecompressSync(brotli.body).toString('utf8')), JSON.parse(plain.body.toString('utf8')));
    const gzipped = await rawGetBytes(test.url, '/api/v2/deployment/config', { ...token, 'accept-encoding': 'gzip' });
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.deepEqual(JSON.parse(gunzipSync(gzipped.body).toString('utf8')), JSON.parse(plain.body.toString('utf8')));
    const small = await rawGetBytes(test.url, '/api/v2/buildinfo', { 'accept-encoding': 'br' });
    assert.ok(small.body.length < 1024);
    assert.equal(small.headers['content-encoding'], undefined, 'under 1 KB: not worth a compressor');
  });
});

describe('the web dashboard when it was not built', () => {
  it('answers its paths with a page that says how to build it, not a JSON 404', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'cove-web-none-'));
    const test = await startTestDaemon({ dashboardDirectory: empty });
    try {
      const page = await fetch(`${test.url}/workspaces`, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 503);
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
      assertDashboardHeaders(page, 'not built');
      assert.match(await page.text(), /npm run build/);
      assert.equal((await fetch(`${test.url}/assets/main-AB12CD34.js`)).status, 404);
      // The icons are part of the daemon, not of the dashboard build.
      assert.equal((await fetch(`${test.url}/icon/terminal.svg`)).status, 200);
    } finally {
      await test.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
