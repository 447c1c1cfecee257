import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, RUN_DATABASE, serveDatabaseArgs, type TestDatabase } from '../helpers/databases.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

/** Runs bin/cove as a user would, with its own config directory. */
function cove(env: Record<string, string>, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(COVE, args, { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Waits until the daemon prints the URL it listens on. */
function waitForListening(child: ChildProcess): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`cove serve did not start:\n${seen}`)), 30_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = /cove is listening url=(\S+)/.exec(seen);
      if (match?.[1]) {
        clearTimeout(timer);
        resolvePromise(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`cove serve exited with ${code}:\n${seen}`));
    });
  });
}

describe('bin/cove end to end', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cove-e2e-data-'));
  const configDir = mkdtempSync(join(tmpdir(), 'cove-e2e-config-'));
  const env = { COVE_CONFIG_DIR: configDir, COVE_SECRET_STORE: 'file' };
  let server: ChildProcess;
  let database: TestDatabase | undefined;
  let url: string;

  before(async () => {
    database = await createTestDatabase(RUN_DATABASE);
    const args = ['serve', '--http-address', '127.0.0.1:0', '--data-dir', dataDir, '--provisioner-daemons', '0'];
    server = spawn(COVE, [...args, ...serveDatabaseArgs(database)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await waitForListening(server);
  });

  after(async () => {
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  });

  it('prints its version without a daemon', () => {
    const result = cove(env, '--version');
    assert.equal(result.code, 0);
    assert.match(result.stdout.trim(), /^\d+\.\d+\.\d+$/);
  });

  it('creates the owner, signs in, and shows who is signed in', () => {
    const login = cove(
      env,
      'login',
      url,
      '--first-user-email',
      'a@example.com',
      '--first-user-username',
      'admin',
      '--first-user-password',
      STRONG_PASSWORD,
    );
    assert.equal(login.code, 0, login.stderr);
    const whoami = cove(env, 'whoami', '-o', 'json');
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.equal((JSON.parse(whoami.stdout) as { username: string }).username, 'admin');
  });

  it('signs out, after which whoami asks the user to sign in', () => {
    assert.equal(cove(env, 'logout').code, 0);
    const whoami = cove(env, 'whoami');
    assert.equal(whoami.code, 1);
    assert.match(whoami.stderr, /You are not signed in/);
  });

  it('shuts down gracefully on SIGTERM', async () => {
    server.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => server.once('exit', r));
    assert.equal(code, 0);
  });
});
