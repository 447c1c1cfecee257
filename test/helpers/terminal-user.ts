import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stop, waitFor } from './child-process.js';
import { createTestDatabase, RUN_DATABASE, serveDatabaseArgs, type TestDatabase } from './databases.js';
import { COVE_BIN } from './repository-root.js';
import { lastLines, watchForStall } from './stall-report.js';
import { firstUserFlags } from './test-daemon.js';

/** What one run of `bin/cove` printed, and its exit code (-1 when it did not exit by itself). */
export interface CoveRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * A person at a terminal for the end-to-end tests: `bin/cove` run in a temporary directory of
 * their own, which holds their CLI configuration, the file their session is kept in and their
 * HOME (where the local-shell example puts workspaces), and a `cove serve` started there.
 */
export class TerminalUser {
  readonly root: string;
  readonly env: { readonly COVE_CONFIG_DIR: string; readonly COVE_SECRET_STORE: 'file'; readonly HOME: string };

  /** `name` goes into the temporary directory's name, to tell whose it was. */
  constructor(name: string) {
    this.root = mkdtempSync(join(tmpdir(), `cove-e2e-${name}-`));
    this.env = { COVE_CONFIG_DIR: join(this.root, 'config'), COVE_SECRET_STORE: 'file', HOME: join(this.root, 'home') };
    mkdirSync(this.env.HOME, { recursive: true });
  }

  /** Runs `bin/cove` to its end (a minute at most), in the user's directory. */
  cove(...args: string[]): CoveRun {
    const result = spawnSync(COVE_BIN, args, { env: { ...process.env, ...this.env }, encoding: 'utf8', timeout: 60_000, cwd: this.root });
    return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  }

  /** Signs up the deployment's first user with `cove login` and its first-user flags; fails the test unless that worked. */
  signUpFirstUser(url: string, user: { readonly email: string; readonly username: string } = FIRST_USER): void {
    const login = this.cove('login', url, ...firstUserFlags(user));
    assert.equal(login.code, 0, login.stderr);
  }

  /** The session token `cove login` kept for `url`. */
  savedToken(url: string): string {
    const tokens = JSON.parse(readFileSync(join(this.env.COVE_CONFIG_DIR, 'credentials.json'), 'utf8')) as Record<string, string>;
    const token = tokens[url];
    assert.ok(token, `the CLI kept a session for ${url}`);
    return token;
  }

  /**
   * Starts `bin/cove serve` with its data directory in the user's directory, on a fresh test
   * database, with one built-in provisioner daemon; `flags` come after those (and `--http-address`
   * replaces the random loopback port). Resolves once it listens.
   */
  async serve(options: { readonly httpAddress?: string; readonly flags?: readonly string[] } = {}): Promise<ServeProcess> {
    const database = await createTestDatabase(RUN_DATABASE);
    const args = ['serve', '--http-address', options.httpAddress ?? '127.0.0.1:0', '--data-dir', join(this.root, 'data')];
    const child = spawn(COVE_BIN, [...args, '--provisioner-daemons', '1', ...(options.flags ?? []), ...serveDatabaseArgs(database)], {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    const url = await waitFor(child, 'stderr', /cove is listening url=(\S+)/, 'cove serve').catch(async (error: unknown) => {
      await database.drop();
      throw error;
    });
    const unwatch = watchForStall({ name: `bin/cove serve ${url}`, lines: () => lastLines(log) });
    const close = async (): Promise<void> => {
      unwatch();
      await stop(child);
      await database.drop();
    };
    return { url, process: child, database, log: () => log, close };
  }

  /**
   * Writes the local-shell example into `name/` with `cove templates init`, with one more app
   * when `app` is given (its URL inside the workspace).
   */
  initLocalShellTemplate(name: string, app?: { readonly slug: string; readonly url: string }): void {
    const init = this.cove('templates', 'init', '--id', 'local-shell', name);
    assert.equal(init.code, 0, init.stderr);
    if (!app) return;
    const file = join(this.root, name, 'template.yaml');
    const text = readFileSync(file, 'utf8');
    const withApp = text.replace(
      /^( +)display_apps: .*$/m,
      (line, indent: string) => `${line}\n${indent}apps:\n${indent}  - slug: ${app.slug}\n${indent}    url: ${app.url}`,
    );
    assert.notEqual(withApp, text, 'the example has display_apps to put the app after');
    writeFileSync(file, withApp);
  }

  /** Removes the user's directory (stop what runs from it first). */
  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** The first user the end-to-end tests sign up. */
const FIRST_USER = { email: 'admin@example.com', username: 'admin' } as const;

/** A `bin/cove serve` a TerminalUser started. */
export interface ServeProcess {
  /** Where it listens. */
  readonly url: string;
  readonly process: ChildProcess;
  readonly database: TestDatabase;
  /** What it printed on stderr so far: its log. */
  log(): string;
  /** Stops it (SIGTERM, waiting for its exit) and drops its database. */
  close(): Promise<void>;
}
