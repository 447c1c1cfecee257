import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, type ConnectionOptions } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import type { AgentHandle } from '../../src/agent/index.js';
import { loadTlsCertificates } from '../../src/daemon/tls-certificates.js';
import { resolveOptions } from '../../src/domain/deployment-options.js';
import { CoveClient } from '../../src/sdk/client.js';
import { setClientTls } from '../../src/sdk/client-tls.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { stop, waitFor } from '../helpers/child-process.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { testCertificateAuthority, type TestCertificate } from '../helpers/test-certificates.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

/** An answer read whole. */
interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** One request over HTTPS (with `tls`: the CA trusted, a client certificate) or plain HTTP. */
function send(url: string, init: { method?: string; headers?: Record<string, string>; body?: string; tls?: ConnectionOptions } = {}) {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Answer>((resolvePromise, reject) => {
    const outgoing = request(
      target,
      { method: init.method ?? 'GET', headers: init.headers ?? {}, agent: false, ...init.tls },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolvePromise({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    outgoing.once('error', reject);
    outgoing.end(init.body);
  });
}

/** The certificate a TLS handshake with `servername` is answered with (its SHA-256 fingerprint). */
function servedFingerprint(url: string, servername: string | undefined, ca: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolvePromise, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca, ...(servername ? { servername } : {}) }, () => {
      resolvePromise(socket.getPeerCertificate().fingerprint256);
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

/** Starts bin/cove serve with `args`; resolves with its plain and HTTPS URLs once it listens. */
async function serve(args: readonly string[], env: Record<string, string>): Promise<{ child: ChildProcess; logs: () => string }> {
  const child = spawn(COVE, ['serve', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let logs = '';
  child.stderr?.on('data', (chunk: Buffer) => (logs += chunk.toString('utf8')));
  await waitFor(child, 'stderr', /cove is listening/, 'cove serve');
  return { child, logs: () => logs };
}

/** Runs a `cove serve` that must fail at start; resolves with its exit code and what it said. */
function startRefused(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cove-e2e-tls-refused-'));
  const child = spawn(COVE, ['serve', '--http-address', '127.0.0.1:0', '--tls-enable', '--data-dir', dataDir, ...args], {
    env: { ...process.env, COVE_SECRET_STORE: 'file' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolvePromise) =>
    child.once('exit', (code) => {
      rmSync(dataDir, { recursive: true, force: true });
      resolvePromise({ code, stderr });
    }),
  );
}

describe('cove serve over TLS', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  const root = mkdtempSync(join(tmpdir(), 'cove-e2e-tls-'));
  const certs = join(root, 'certs');
  mkdirSync(certs);
  mkdirSync(join(root, 'home'));
  const authority = testCertificateAuthority(certs);
  const alpha = authority.issue('alpha', ['alpha.test', 'localhost', '127.0.0.1']);
  const beta = authority.issue('beta', ['beta.test']);
  const client = authority.issue('client', ['alice'], 'client');
  // The same names from another CA: what an attacker can make.
  const stranger = testCertificateAuthority(mkdtempSync(join(root, 'stranger-'))).issue('client', ['alice'], 'client');
  const env = { COVE_CONFIG_DIR: join(root, 'config'), COVE_SECRET_STORE: 'file', HOME: join(root, 'home') };
  const cove = (...args: string[]) => {
    const result = spawnSync(COVE, args, { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
    return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  };
  const trusting: ConnectionOptions = { ca: authority.ca };
  let main: { child: ChildProcess; logs: () => string };
  let strict: { child: ChildProcess; logs: () => string } | undefined;
  let strictUrl = '';
  let mismatched: Promise<{ code: number | null; stderr: string }>;
  let httpUrl = '';
  let httpsUrl = '';
  let agent: AgentHandle | undefined;
  let token = '';
  let agentId = '';

  before(async () => {
    // Started together: each start takes seconds on a busy machine.
    const strictStart = serve(
      [
        ...['--http-address', '', '--tls-enable', '--tls-address', '127.0.0.1:0', '--tls-min-version', 'tls13'],
        ...['--tls-cert-file', beta.certFile, '--tls-key-file', beta.keyFile, '--tls-client-auth', 'require-and-verify'],
        ...['--tls-client-ca-file', authority.caFile, '--data-dir', join(root, 'strict'), '--provisioner-daemons', '0'],
      ],
      env,
    );
    mismatched = startRefused(['--tls-cert-file', beta.certFile, '--tls-key-file', client.keyFile]);
    main = await serve(
      [
        ...['--http-address', '127.0.0.1:0', '--tls-enable', '--tls-address', '127.0.0.1:0'],
        ...['--tls-cert-file', `${alpha.certFile},${beta.certFile}`, '--tls-key-file', `${alpha.keyFile},${beta.keyFile}`],
        ...[
          '--redirect-to-access-url',
          '--strict-transport-security',
          '31536000',
          '--strict-transport-security-options',
          'includeSubDomains',
        ],
        ...['--data-dir', join(root, 'data'), '--provisioner-daemons', '1'],
      ],
      env,
    );
    const listening = /cove is listening url=(\S+) tls_url=(\S+)/.exec(main.logs());
    httpUrl = listening?.[1] ?? '';
    httpsUrl = listening?.[2] ?? '';
    assert.match(httpsUrl, /^https:\/\/127\.0\.0\.1:\d+$/);
    strict = await strictStart;
    strictUrl = /cove is listening url=(\S+)/.exec(strict.logs())?.[1] ?? '';
    assert.match(strictUrl, /^https:/);
  });

  after(async () => {
    await agent?.stop();
    setClientTls({});
    await stop(main?.child);
    await stop(strict?.child);
    rmSync(root, { recursive: true, force: true });
  });

  it('signs in with the CLI given the CA, and says which option is missing without it', () => {
    const args = ['login', httpsUrl, '--first-user-email', 'owner@example.com', '--first-user-username', 'owner'];
    const untrusting = cove(...args, '--first-user-password', STRONG_PASSWORD);
    assert.equal(untrusting.code, 1);
    assert.match(untrusting.stderr, /not signed by a CA this computer trusts/);
    assert.match(untrusting.stderr, /--client-tls-ca-file/);
    const login = cove(...args, '--first-user-password', STRONG_PASSWORD, '--client-tls-ca-file', authority.caFile);
    assert.equal(login.code, 0, login.stderr);
    // The variable works as the flag does, for every command.
    const whoami = spawnSync(COVE, ['whoami', '-o', 'json'], {
      env: { ...process.env, ...env, COVE_CLIENT_TLS_CA_FILE: authority.caFile },
      encoding: 'utf8',
    });
    assert.equal(whoami.status, 0, whoami.stderr);
    assert.equal((JSON.parse(whoami.stdout) as { username: string }).username, 'owner');
  });

  it('answers each name with its own certificate (SNI), and unknown names with the first', async () => {
    const alphaPrint = new X509Certificate(alpha.cert).fingerprint256;
    assert.equal(await servedFingerprint(httpsUrl, 'alpha.test', authority.ca), alphaPrint);
    assert.equal(await servedFingerprint(httpsUrl, 'beta.test', authority.ca), new X509Certificate(beta.cert).fingerprint256);
    assert.equal(await servedFingerprint(httpsUrl, undefined, authority.ca), alphaPrint);
  });

  it('sets the HSTS header on HTTPS answers only, and a Secure session cookie', async () => {
    const secure = await send(`${httpsUrl}/api/v2/buildinfo`, { tls: trusting });
    assert.equal(secure.status, 200);
    assert.equal(secure.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
    const plain = await send(`${httpUrl}/api/v2/buildinfo`);
    assert.equal(plain.status, 200, 'a loopback address is never redirected');
    assert.equal(plain.headers['strict-transport-security'], undefined);
    const login = await send(`${httpsUrl}/api/v2/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@example.com', password: STRONG_PASSWORD }),
      tls: trusting,
    });
    assert.equal(login.status, 201, login.body);
    const cookie = [login.headers['set-cookie'] ?? []].flat().find((line) => line.startsWith('service_session_token='));
    assert.ok(cookie, 'the session cookie is set');
    assert.match(cookie, /; Secure/);
    token = (JSON.parse(login.body) as { session_token: string }).session_token;
  });

  it('redirects plain HTTP to the access URL, keeping the path, but not /healthz', async () => {
    const port = new URL(httpUrl).port;
    const redirected = await send(`${httpUrl}/templates?x=1`, { headers: { host: `localhost:${port}` } });
    assert.equal(redirected.status, 307);
    assert.equal(redirected.headers.location, `${httpsUrl}/templates?x=1`);
    // A path that looks like another host stays a path of the access URL.
    const sneaky = await send(`${httpUrl}//evil.example/x`, { headers: { host: 'cove.example' } });
    assert.equal(sneaky.headers.location, `${httpsUrl}//evil.example/x`);
    assert.ok(new URL(sneaky.headers.location ?? '').host === new URL(httpsUrl).host);
    const health = await send(`${httpUrl}/healthz`, { headers: { host: 'cove.example' } });
    assert.equal(health.status, 200);
  });

  it('opens a web terminal to a real agent over wss, and keeps it open across a certificate reload (SIGHUP)', async () => {
    // This process (its SDK and its agent) trusts the CA as `cove --client-tls-ca-file` does.
    setClientTls({ ca: [authority.ca] });
    const owner = new CoveClient({ url: httpsUrl, token });
    ({ agent, agentId } = await startAgentWorkspace({
      url: httpsUrl,
      owner,
      member: owner,
      token: randomUUID(),
      home: join(root, 'home'),
    }));
    const terminal = new WebSocket(`${httpsUrl.replace(/^https/, 'wss')}/api/v2/workspaceagents/${agentId}/pty?reconnect=${randomUUID()}`, {
      headers: { 'Service-Session-Token': token },
      ca: authority.ca,
    });
    let output = '';
    terminal.on('message', (data: Buffer) => (output += data.toString('utf8')));
    await new Promise((resolvePromise, reject) => terminal.once('open', resolvePromise).once('error', reject));
    const runs = async (a: number) => {
      terminal.send(JSON.stringify({ data: `echo $((${a}+1000))z\r` }));
      await eventually(() => assert.ok(output.includes(`${a + 1000}z`), output), 5_000);
    };
    await runs(1);

    const next: TestCertificate = authority.issue('alpha-next', ['alpha.test', 'localhost', '127.0.0.1']);
    writeFileSync(alpha.certFile, next.cert);
    writeFileSync(alpha.keyFile, next.key);
    main.child.kill('SIGHUP');
    const nextPrint = new X509Certificate(next.cert).fingerprint256;
    await eventually(async () => assert.equal(await servedFingerprint(httpsUrl, 'alpha.test', authority.ca), nextPrint), 5_000);
    await runs(2);

    // A broken file is refused: the certificates loaded last go on being served.
    writeFileSync(alpha.keyFile, 'not a key');
    main.child.kill('SIGHUP');
    await eventually(() => assert.match(main.logs(), /kept the TLS certificates served until now.*--tls-key-file/), 5_000);
    assert.equal(await servedFingerprint(httpsUrl, 'alpha.test', authority.ca), nextPrint);
    await runs(3);
    assert.equal(terminal.readyState, WebSocket.OPEN);
    terminal.close();
  });

  describe('with --tls-min-version tls13 and --tls-client-auth require-and-verify, HTTPS alone', () => {
    const withName = (tls: ConnectionOptions): ConnectionOptions => ({ ...tls, ca: authority.ca, servername: 'beta.test' });
    // To the loopback address, naming beta.test: its certificate's only name.
    const buildinfo = (tls: ConnectionOptions) => send(`${strictUrl}/api/v2/buildinfo`, { tls: withName(tls) });

    it('answers a client with a certificate its CA signed', async () => {
      const answer = await buildinfo({ cert: client.cert, key: client.key });
      assert.equal(answer.status, 200, answer.body);
    });

    it('refuses a client with no certificate, and one whose certificate another CA signed', async () => {
      await assert.rejects(buildinfo({}));
      await assert.rejects(buildinfo({ cert: stranger.cert, key: stranger.key }));
    });

    it('refuses a client that speaks TLS 1.2 at most', async () => {
      await assert.rejects(buildinfo({ cert: client.cert, key: client.key, maxVersion: 'TLSv1.2' }), /version|protocol/i);
    });
  });

  it('refuses to start without a certificate, with a key of another certificate, or an unreadable file, naming the option', async () => {
    const refused = await mismatched;
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /cove serve could not start: --tls-key-file \S+client\.key is not the key of the certificate in --tls-cert-file \S+beta\.crt/,
    );
    // The same checks, without a process each.
    const flags = { tlsEnable: 'true', provisionerDaemons: '0' };
    assert.throws(() => resolveOptions({ flags }), /--tls-enable needs a certificate: give --tls-cert-file and --tls-key-file/);
    const missing = resolveOptions({ flags: { ...flags, tlsCertFiles: join(root, 'absent.crt'), tlsKeyFiles: beta.keyFile } });
    assert.throws(() => loadTlsCertificates(missing.values), /--tls-cert-file \S+absent\.crt cannot be read \(ENOENT\)/);
    const uneven = { ...flags, tlsCertFiles: `${alpha.certFile},${beta.certFile}`, tlsKeyFiles: beta.keyFile };
    assert.throws(() => resolveOptions({ flags: uneven }), /--tls-cert-file names 2 file\(s\) but --tls-key-file 1/);
    assert.throws(() => resolveOptions({ flags: { tlsMinVersion: 'tls14' } }), /--tls-min-version: "tls14" is not one of/);
    assert.throws(() => resolveOptions({ flags: { tlsClientAuth: 'always' } }), /--tls-client-auth: "always" is not one of/);
    assert.throws(
      () => resolveOptions({ flags: { strictTransportSecurityOptions: 'preload,everything' } }),
      /--strict-transport-security-options: "everything"/,
    );
  });
});
