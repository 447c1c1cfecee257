import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { KeyringSession, missingKeyringTools } from '../helpers/keyring-session.js';
import { startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

// Session tokens in a real Secret Service (gnome-keyring on a private D-Bus session), through the
// built CLI in a child process: a crash in the keychain binding must fail a test, not kill the
// runner. Every command must finish within 5 s whatever state the keyring is in.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const COMMAND_LIMIT_MS = 5000;
const EMAIL = 'keys@example.com';
const FALLBACK_LINE =
  /^The keychain could not store the session token \((.+)\); it is in \S+credentials\.json \(mode 0600\) instead; set COVE_SECRET_STORE=keychain or COVE_SECRET_STORE=file to choose\.\n$/;

/** What one run of bin/cove printed, returned and took. */
interface CommandResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** A CLI user in a keyring session: their own config directory, running bin/cove. */
class KeychainCliUser {
  readonly configDir = mkdtempSync(join(tmpdir(), 'cove-keychain-cli-'));

  constructor(private readonly session: KeyringSession) {}

  /** Runs bin/cove with the session's environment, adjusted by `env` (a key set to undefined is removed). */
  run(args: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): Promise<CommandResult> {
    // Built from scratch, so the runner's COVE_SECRET_STORE=file does not leak in.
    const merged: Record<string, string | undefined> = { ...this.session.env, COVE_CONFIG_DIR: this.configDir, ...env };
    const childEnv = Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const started = performance.now();
    return new Promise((resolvePromise, reject) => {
      const child = spawn(join(root, 'bin', 'cove'), [...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
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

  /** Runs a command that must succeed within the limit. */
  async ok(args: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): Promise<CommandResult> {
    const result = await this.run(args, env);
    assert.equal(result.code, 0, `cove ${args.join(' ')} exited ${result.code ?? result.signal}: ${result.stderr}`);
    assertQuick(result, args);
    return result;
  }

  /** `cove login` with the user's password; `-o json` unless `table` (errors print as JSON there). */
  login(url: string, env: Readonly<Record<string, string | undefined>> = {}, output: 'json' | 'table' = 'json'): Promise<CommandResult> {
    return this.run(['login', url, '--email', EMAIL, '--password', STRONG_PASSWORD, '-o', output], env);
  }

  /** The tokens in the credentials file, by URL. */
  fileTokens(): Record<string, string> {
    const path = join(this.configDir, 'credentials.json');
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>) : {};
  }

  /** The store the config records for a deployment. */
  recordedStore(url: string): string | undefined {
    const config = JSON.parse(readFileSync(join(this.configDir, 'config.json'), 'utf8')) as { secret_stores?: Record<string, string> };
    return config.secret_stores?.[url];
  }
}

function assertQuick(result: CommandResult, args: readonly string[]): void {
  assert.ok(result.ms < COMMAND_LIMIT_MS, `cove ${args.join(' ')} took ${Math.round(result.ms)} ms`);
}

/** The secret of the Cove item for `url` that `secret-tool` shows, if there is one. */
function keyringToken(items: string, url: string): string | undefined {
  if (!items.includes(`attribute.username = ${url}`)) return undefined;
  return /^secret = (.+)$/m.exec(items)?.[1];
}

const missing = missingKeyringTools();
const required = process.env['CI'] === 'true' || process.env['COVE_REQUIRE_KEYCHAIN'] === '1';

if (missing.length > 0 && required) {
  describe('session tokens in a real Secret Service', () => {
    it('has the keyring tools', () => {
      assert.fail(`missing ${missing.join(', ')}: install gnome-keyring, dbus and libsecret-tools (.ci/run does)`);
    });
  });
} else {
  describe(
    'session tokens in a real Secret Service',
    {
      skip:
        THE_SQLITE_RUN_COVERS_IT ||
        (missing.length > 0 ? `missing ${missing.join(', ')} (apt-get install gnome-keyring dbus libsecret-tools)` : false),
    },
    () => {
      let test: TestDaemon;
      let url: string;
      const sessions: KeyringSession[] = [];

      /** A fresh private session with its bus running. */
      async function newSession(): Promise<KeyringSession> {
        const session = new KeyringSession();
        sessions.push(session);
        await session.startBus();
        return session;
      }

      /** The number of password sessions the user has on the server. */
      async function passwordSessions(): Promise<number> {
        const row = await test.daemon.store.db
          .selectFrom('api_keys')
          .innerJoin('users', 'users.id', 'api_keys.user_id')
          .where('users.email', '=', EMAIL)
          .where('api_keys.login_type', '=', 'password')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .executeTakeFirstOrThrow();
        return Number(row.count);
      }

      before(async () => {
        assert.ok(existsSync(join(root, 'dist', 'entry.js')), 'dist/entry.js is missing: npm test builds it first');
        test = await startTestDaemon();
        url = test.url;
        await test.anonymous.createFirstUser({ email: EMAIL, username: 'keys', password: STRONG_PASSWORD });
      });
      after(async () => {
        for (const session of sessions) await session.close();
        await test.close();
      });

      it('keeps the token in an unlocked keyring, and nowhere else', async () => {
        const session = await newSession();
        await session.startKeyring({ unlocked: true });
        const user = new KeychainCliUser(session);

        const login = await user.login(url);
        assert.equal(login.code, 0, login.stderr);
        assertQuick(login, ['login']);
        assert.equal(login.stderr, '');
        assert.equal((JSON.parse(login.stdout) as { secret_store: string }).secret_store, 'keychain');
        const token = keyringToken(session.coveItems(), url);
        assert.ok(token, `secret-tool shows no Cove item for ${url}:\n${session.coveItems()}`);
        assert.equal(existsSync(join(user.configDir, 'credentials.json')), false);
        assert.equal(user.recordedStore(url), 'keychain');

        assert.match((await user.ok(['whoami'])).stdout, /^keys <keys@example\.com> on /);

        const logout = await user.ok(['logout']);
        assert.match(logout.stdout, /Signed out of /);
        assert.doesNotMatch(session.coveItems(), /attribute\.service = cove/);
        assert.equal(user.recordedStore(url), undefined);
        await expectApiError(new CoveClient({ url, token }).user('me'), 401);
        const whoami = await user.run(['whoami']);
        assert.equal(whoami.code, 1);
        assert.match(whoami.stderr, /You are not signed in/);
      });

      it('moves the token when a later login picks the other store, so it is never in both', async () => {
        const session = await newSession();
        await session.startKeyring({ unlocked: true });
        const user = new KeychainCliUser(session);
        assert.equal((await user.login(url)).code, 0);
        assert.ok(keyringToken(session.coveItems(), url));

        const toFile = await user.login(url, { COVE_SECRET_STORE: 'file' });
        assert.equal(toFile.code, 0, toFile.stderr);
        assert.equal((JSON.parse(toFile.stdout) as { secret_store: string }).secret_store, 'file');
        assert.doesNotMatch(session.coveItems(), /attribute\.service = cove/);
        assert.ok(user.fileTokens()[url]);

        const back = await user.login(url, { COVE_SECRET_STORE: 'keychain' });
        assert.equal(back.code, 0, back.stderr);
        assert.ok(keyringToken(session.coveItems(), url));
        assert.equal(user.fileTokens()[url], undefined);
        await user.ok(['logout']);
        assert.doesNotMatch(session.coveItems(), /attribute\.service = cove/);

        const wrong = await user.login(url, { COVE_SECRET_STORE: 'vault' }, 'table');
        assert.equal(wrong.code, 1);
        assert.match(wrong.stderr, /COVE_SECRET_STORE is "vault"; it must be "keychain" or "file"/);
      });

      it('falls back to the file when the keyring is locked', async () => {
        const session = await newSession();
        await session.startKeyring({ unlocked: true });
        session.lock();
        const user = new KeychainCliUser(session);

        const login = await user.login(url);
        assert.equal(login.code, 0, login.stderr);
        assertQuick(login, ['login']);
        assert.match(login.stderr, FALLBACK_LINE);
        assert.match(login.stderr, /unlock prompt was dismissed/);
        assert.equal((JSON.parse(login.stdout) as { secret_store: string }).secret_store, 'file');
        assert.ok(user.fileTokens()[url]);

        await user.ok(['whoami']);
        await user.ok(['logout']);
        assert.deepEqual(user.fileTokens(), {});
        assert.doesNotMatch(session.coveItems(), /attribute\.service = cove/);
      });

      it('fails a forced keychain login on a locked keyring without leaving its server session behind', async () => {
        const session = await newSession();
        await session.startKeyring({ unlocked: true });
        session.lock();
        const user = new KeychainCliUser(session);
        const before = await passwordSessions();

        const login = await user.login(url, { COVE_SECRET_STORE: 'keychain' }, 'table');
        assert.equal(login.code, 1);
        assertQuick(login, ['login']);
        assert.match(login.stderr, /^error: Could not store the session token in the keychain: .*unlock prompt was dismissed\.\n/);
        assert.match(login.stderr, /COVE_SECRET_STORE=file/);
        assert.equal(await passwordSessions(), before);
        assert.deepEqual(user.fileTokens(), {});

        // A token the user brought is theirs: a login that cannot keep it leaves its session alone.
        const { session_token: brought } = await test.anonymous.login(EMAIL, STRONG_PASSWORD);
        const withToken = await user.run(['login', url, '--token', brought], { COVE_SECRET_STORE: 'keychain' });
        assert.equal(withToken.code, 1);
        assert.match(withToken.stderr, /^error: Could not store the session token in the keychain/);
        assert.equal((await test.anonymous.withToken(brought).user('me')).email, EMAIL);
      });

      it('a keyring locked after login: commands fail fast and clearly, and logout works once it is unlocked', async () => {
        const session = await newSession();
        await session.startKeyring({ unlocked: true });
        const user = new KeychainCliUser(session);
        assert.equal((await user.login(url)).code, 0);
        const token = keyringToken(session.coveItems(), url);
        assert.ok(token);
        session.lock();

        for (const command of ['whoami', 'logout']) {
          const result = await user.run([command]);
          assert.equal(result.code, 1, `${command}: ${result.stderr}`);
          assertQuick(result, [command]);
          assert.match(
            result.stderr,
            /^error: Could not read the session token for \S+ from the keychain: .*unlock prompt was dismissed\.\n/,
          );
          assert.match(
            result.stderr,
            /hint: Unlock the keyring and try again, or sign in with the token in a file: COVE_SECRET_STORE=file cove login /,
          );
        }

        await session.stopKeyring();
        await session.startKeyring({ unlocked: true });
        await user.ok(['whoami']);
        await user.ok(['logout']);
        assert.doesNotMatch(session.coveItems(), /attribute\.service = cove/);
        await expectApiError(new CoveClient({ url, token }).user('me'), 401);
      });

      it('falls back to the file when the keyring has no login collection', async () => {
        const session = await newSession();
        await session.startKeyring({ unlocked: false });
        const user = new KeychainCliUser(session);

        const login = await user.login(url);
        assert.equal(login.code, 0, login.stderr);
        assertQuick(login, ['login']);
        assert.match(login.stderr, FALLBACK_LINE);
        assert.equal(user.recordedStore(url), 'file');

        await user.ok(['whoami']);
        await user.ok(['logout']);
        assert.deepEqual(user.fileTokens(), {});
        assert.doesNotMatch(session.coveItems(), /attribute\.service = cove/);
      });

      it('does not wait for a stopped keyring daemon', async () => {
        const session = await newSession();
        await session.startKeyring({ unlocked: true });
        const user = new KeychainCliUser(session);
        session.pauseKeyring();

        const login = await user.login(url);
        assert.equal(login.code, 0, login.stderr);
        assertQuick(login, ['login']);
        assert.match(login.stderr, FALLBACK_LINE);
        assert.match(login.stderr, /the keychain did not answer within 2 s/);
        await user.ok(['whoami']);
        await user.ok(['logout']);
        assert.deepEqual(user.fileTokens(), {});

        // A token kept in the keychain before the daemon stopped: reading it fails fast and clearly.
        session.resumeKeyring();
        const keychainUser = new KeychainCliUser(session);
        assert.equal((await keychainUser.login(url)).code, 0);
        assert.ok(keyringToken(session.coveItems(), url));
        session.pauseKeyring();
        const whoami = await keychainUser.run(['whoami']);
        assert.equal(whoami.code, 1, whoami.stderr);
        assertQuick(whoami, ['whoami']);
        assert.match(whoami.stderr, /Could not read the session token for \S+ from the keychain: the keychain did not answer within 2 s\./);
        session.resumeKeyring();
        await keychainUser.ok(['logout']);
        assert.doesNotMatch(session.coveItems(), /attribute\.service = cove/);
      });

      for (const [name, address] of [
        ['no session bus address', undefined],
        ['a session bus address that leads nowhere', 'unix:path=/nonexistent/cove-test-bus'],
      ] as const) {
        it(`falls back to the file with ${name}`, async () => {
          const session = await newSession();
          const user = new KeychainCliUser(session);
          const env = { DBUS_SESSION_BUS_ADDRESS: address };

          const login = await user.login(url, env);
          assert.equal(login.code, 0, login.stderr);
          assertQuick(login, ['login']);
          assert.match(login.stderr, FALLBACK_LINE);
          assert.equal(user.recordedStore(url), 'file');
          await user.ok(['whoami'], env);
          await user.ok(['logout'], env);
          assert.deepEqual(user.fileTokens(), {});
        });
      }
    },
  );
}
