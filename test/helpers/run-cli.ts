import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { firstUserFlags } from './test-daemon.js';

/** What one in-process CLI run printed and returned. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A CLI user: their own config directory and environment, running `main` in-process. */
export class CliUser {
  readonly configDir: string;

  constructor(
    readonly env: Readonly<Record<string, string>> = {},
    configDir?: string,
  ) {
    this.configDir = configDir ?? mkdtempSync(join(tmpdir(), 'cove-cli-'));
  }

  /** The same user (same config directory and saved session) with more environment variables. */
  withEnv(env: Readonly<Record<string, string>>): CliUser {
    return new CliUser({ ...this.env, ...env }, this.configDir);
  }

  /** The session token `cove login` saved for this user (the file store holds one per deployment). */
  savedToken(): string {
    const secrets = JSON.parse(readFileSync(join(this.configDir, 'credentials.json'), 'utf8')) as Record<string, string>;
    const [token] = Object.values(secrets);
    if (!token) throw new Error('this CLI user has not signed in');
    return token;
  }

  async run(...args: string[]): Promise<CliResult> {
    return this.start(...args).done;
  }

  /**
   * Signs up the deployment's first user with `cove login` and its first-user flags (with the tests'
   * password), and throws unless that succeeded: the set-up most CLI suites start with.
   */
  async signUpFirstUser(url: string, user: { readonly email: string; readonly username: string }): Promise<void> {
    const result = await this.run('login', url, ...firstUserFlags(user));
    if (result.code !== 0) throw new Error(`cove login ${url} failed (${result.code}): ${result.stderr}${result.stdout}`);
  }

  /**
   * Starts a command that runs until interrupted (port-forward): what it printed so far can be
   * read while it runs, and `interrupt` ends it as Ctrl+C would.
   */
  start(...args: string[]): RunningCli {
    const output = { stdout: '', stderr: '' };
    const collect = (stream: 'stdout' | 'stderr') =>
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          output[stream] += chunk.toString('utf8');
          done();
        },
      });
    const stdin = new PassThrough();
    stdin.end();
    const interrupt = new AbortController();
    const done = main(['node', 'cove', ...args], {
      stdout: collect('stdout'),
      stderr: collect('stderr'),
      stdin,
      env: { COVE_CONFIG_DIR: this.configDir, COVE_SECRET_STORE: 'file', ...this.env },
      interrupt: interrupt.signal,
    }).then((code) => ({ code, ...output }));
    return {
      done,
      output: () => ({ ...output }),
      interrupt: () => {
        interrupt.abort();
        return done;
      },
    };
  }
}

/** A command started with `CliUser.start`. */
export interface RunningCli {
  readonly done: Promise<CliResult>;
  /** What it printed so far. */
  output(): { readonly stdout: string; readonly stderr: string };
  /** Ends it as Ctrl+C would, and waits for it. */
  interrupt(): Promise<CliResult>;
}
