import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

// What a keychain binding that crashes (as keytar did on a locked keyring) or never returns does
// to the built CLI: stand-in bindings, named by COVE_KEYRING_BINDING, that segfault, block forever
// or keep entries in a JSON file. These need no keyring daemon, so they run everywhere.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const COMMAND_LIMIT_MS = 5000;
const EMAIL = 'binding@example.com';

const BINDINGS = {
  crashing: `exports.Entry = class { constructor() { process.kill(process.pid, 'SIGSEGV'); } };`,
  hanging: `exports.Entry = class { constructor() { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); } };`,
  // Entries in the file FAKE_KEYRING_FILE, by account.
  working: `
const fs = require('node:fs');
const file = process.env.FAKE_KEYRING_FILE;
const read = () => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {});
exports.Entry = class {
  constructor(service, account) { this.key = service + ' ' + account; }
  getPassword() { return read()[this.key] ?? null; }
  setPassword(secret) { fs.writeFileSync(file, JSON.stringify({ ...read(), [this.key]: secret })); }
  deleteCredential() { const all = read(); const had = this.key in all; delete all[this.key]; fs.writeFileSync(file, JSON.stringify(all)); return had; }
};`,
} as const;
type BindingName = keyof typeof BINDINGS;

interface CommandResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

describe('a keychain binding that crashes or hangs', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  let test: TestDaemon;
  const dir = mkdtempSync(join(tmpdir(), 'cove-keychain-binding-'));
  const keyringFile = join(dir, 'keyring.json');
  const configDir = join(dir, 'config');

  before(async () => {
    assert.ok(existsSync(join(root, 'dist', 'entry.js')), 'dist/entry.js is missing: npm test builds it first');
    for (const [name, source] of Object.entries(BINDINGS)) writeFileSync(join(dir, `${name}.cjs`), source);
    mkdirSync(join(dir, 'home'));
    test = await startTestDaemon();
    await test.anonymous.createFirstUser({ email: EMAIL, username: 'binding', password: STRONG_PASSWORD });
  });
  after(async () => test.close());

  function cove(binding: BindingName, ...args: string[]): Promise<CommandResult> {
    // Built from scratch, so the runner's COVE_SECRET_STORE=file does not leak in.
    const env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: join(dir, 'home'),
      COVE_CONFIG_DIR: configDir,
      COVE_KEYRING_BINDING: join(dir, `${binding}.cjs`),
      FAKE_KEYRING_FILE: keyringFile,
    };
    const started = performance.now();
    return new Promise((resolvePromise, reject) => {
      const child = spawn(join(root, 'bin', 'cove'), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      // Far past the limit the assertions hold commands to: only there so a hang fails instead of stalling the suite.
      const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(guard);
        resolvePromise({ code, signal, stdout, stderr, ms: performance.now() - started });
      });
    });
  }

  function login(binding: BindingName): Promise<CommandResult> {
    return cove(binding, 'login', test.url, '--email', EMAIL, '--password', STRONG_PASSWORD);
  }

  function expectExit(result: CommandResult, code: number, what: string): void {
    assert.equal(result.signal, null, `${what} was killed by ${result.signal}`);
    assert.equal(result.code, code, `${what} exited ${result.code}: ${result.stderr}`);
    assert.ok(result.ms < COMMAND_LIMIT_MS, `${what} took ${Math.round(result.ms)} ms`);
  }

  function fileTokens(): Record<string, string> {
    const path = join(configDir, 'credentials.json');
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>) : {};
  }

  for (const [binding, why] of [
    ['crashing', /the keychain binding crashed \(SIGSEGV\)/],
    ['hanging', /the keychain did not answer within 2 s/],
  ] as const) {
    it(`signs in with the token in the file when the binding is ${binding}`, async () => {
      const result = await login(binding);
      expectExit(result, 0, 'login');
      assert.match(result.stderr, why);
      assert.match(
        result.stderr,
        /^The keychain could not store the session token \(.+\); it is in \S+credentials\.json \(mode 0600\) instead; set COVE_SECRET_STORE=keychain or COVE_SECRET_STORE=file to choose\.\n$/,
      );
      assert.ok(fileTokens()[test.url]);
      // The file is recorded: later commands do not touch the keychain at all.
      expectExit(await cove(binding, 'whoami'), 0, 'whoami');
      expectExit(await cove(binding, 'logout'), 0, 'logout');
      assert.deepEqual(fileTokens(), {});
    });
  }

  it('fails fast and clearly when the keychain holding the token crashes or hangs, and signs out once it answers', async () => {
    expectExit(await login('working'), 0, 'login');
    assert.deepEqual(fileTokens(), {});
    const stored = Object.values(JSON.parse(readFileSync(keyringFile, 'utf8')) as Record<string, string>);
    assert.equal(stored.length, 1);

    for (const [binding, why] of [
      ['crashing', 'the keychain binding crashed \\(SIGSEGV\\)'],
      ['hanging', 'the keychain did not answer within 2 s'],
    ] as const) {
      for (const command of ['whoami', 'logout']) {
        const result = await cove(binding, command);
        expectExit(result, 1, `${command} with a ${binding} binding`);
        assert.match(result.stderr, new RegExp(`^error: Could not read the session token for \\S+ from the keychain: ${why}\\.\\n`));
      }
    }

    expectExit(await cove('working', 'whoami'), 0, 'whoami');
    expectExit(await cove('working', 'logout'), 0, 'logout');
    assert.deepEqual(JSON.parse(readFileSync(keyringFile, 'utf8')), {});
    const whoami = await cove('working', 'whoami');
    expectExit(whoami, 1, 'whoami after logout');
    assert.match(whoami.stderr, /You are not signed in/);
  });
});
