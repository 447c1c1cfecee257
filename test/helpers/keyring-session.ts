import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from './child-process.js';

/** The programs a real Secret Service session needs (Debian: gnome-keyring, dbus, libsecret-tools). */
const TOOLS = ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool'];

/** The keyring tools this machine lacks. */
export function missingKeyringTools(): string[] {
  return TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
}

/** Where the login collection lives on the bus, and its password in these tests. */
const LOGIN_COLLECTION = '/org/freedesktop/secrets/collection/login';
const KEYRING_PASSWORD = 'keyring-password';

/**
 * A private desktop-like session: its own HOME and XDG directories, its own D-Bus session bus (no
 * service activation, so only the keyring the test starts answers) and a gnome-keyring daemon the
 * test starts, stops, locks and pauses.
 */
export class KeyringSession {
  readonly root = mkdtempSync(join(tmpdir(), 'cove-keyring-'));
  /** HOME and XDG directories for every process of the session (the keyring keeps its files there). */
  readonly baseEnv: Readonly<Record<string, string>>;
  #bus: ChildProcess | undefined;
  #busAddress = '';
  #keyring: ChildProcess | undefined;

  constructor() {
    const dir = (name: string) => {
      const path = join(this.root, name);
      mkdirSync(path, { recursive: true, mode: 0o700 });
      return path;
    };
    this.baseEnv = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: dir('home'),
      XDG_RUNTIME_DIR: dir('run'),
      XDG_DATA_HOME: dir('data'),
      XDG_CONFIG_HOME: dir('config'),
      XDG_CACHE_HOME: dir('cache'),
    };
  }

  /** The session's environment: the base one with the bus address. */
  get env(): Readonly<Record<string, string>> {
    return { ...this.baseEnv, DBUS_SESSION_BUS_ADDRESS: this.#busAddress };
  }

  /** Starts the session bus. */
  async startBus(): Promise<void> {
    const config = join(this.root, 'session.conf');
    writeFileSync(
      config,
      `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=${this.root}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`,
    );
    this.#bus = spawn('dbus-daemon', [`--config-file=${config}`, '--nofork', '--print-address=1'], {
      env: this.baseEnv,
      // Its stderr only complains that it may not raise the file limit, which a test bus does not need.
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    this.#busAddress = (await waitFor(this.#bus, 'stdout', /^(unix:\S+)\n/, 'dbus-daemon')).trim();
  }

  /**
   * Starts gnome-keyring's secrets component. `unlocked` gives it the password, which unlocks the
   * login collection (creating it the first time); without it the collection stays locked, or does
   * not exist in a fresh session.
   */
  async startKeyring(options: { readonly unlocked: boolean }): Promise<void> {
    const args = ['--foreground', '--components=secrets', ...(options.unlocked ? ['--unlock'] : [])];
    const keyring = spawn('gnome-keyring-daemon', args, { env: this.env, stdio: ['pipe', 'ignore', 'ignore'] });
    keyring.stdin?.end(options.unlocked ? KEYRING_PASSWORD : '');
    this.#keyring = keyring;
    for (let i = 0; i < 100; i++) {
      if (
        this.#dbusSend(
          ['/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'],
          'org.freedesktop.DBus',
        ).includes('boolean true')
      )
        return;
      if (keyring.exitCode !== null) break;
      await sleep(100);
    }
    throw new Error('gnome-keyring-daemon did not come up on the session bus');
  }

  /** Stops the keyring daemon (after waking it, should it be paused). */
  async stopKeyring(): Promise<void> {
    const keyring = this.#keyring;
    this.#keyring = undefined;
    if (!keyring || keyring.exitCode !== null || keyring.signalCode !== null) return;
    const exited = new Promise((resolve) => keyring.once('exit', resolve));
    keyring.kill('SIGCONT');
    keyring.kill('SIGTERM');
    await exited;
  }

  /** Locks the login collection, as a screen lock or a fresh SSH login leaves it. */
  lock(): void {
    const reply = this.#dbusSend(['/org/freedesktop/secrets', 'org.freedesktop.Secret.Service.Lock', `array:objpath:${LOGIN_COLLECTION}`]);
    if (!reply.includes(LOGIN_COLLECTION)) throw new Error(`locking the login collection answered: ${reply}`);
  }

  /** SIGSTOP: the daemon keeps its bus name but answers nothing. */
  pauseKeyring(): void {
    this.#keyring?.kill('SIGSTOP');
  }

  resumeKeyring(): void {
    this.#keyring?.kill('SIGCONT');
  }

  /** What `secret-tool search --all service cove` prints: every Cove item with its attributes, and its secret when unlocked. */
  coveItems(): string {
    const result = spawnSync('secret-tool', ['search', '--all', 'service', 'cove'], { env: this.env, encoding: 'utf8', timeout: 10_000 });
    return `${result.stdout}${result.stderr}`;
  }

  async close(): Promise<void> {
    await this.stopKeyring();
    const bus = this.#bus;
    if (bus && bus.exitCode === null && bus.signalCode === null) {
      const exited = new Promise((resolve) => bus.once('exit', resolve));
      bus.kill('SIGTERM');
      await exited;
    }
    rmSync(this.root, { recursive: true, force: true });
  }

  #dbusSend(args: readonly string[], destination = 'org.freedesktop.secrets'): string {
    const result = spawnSync('dbus-send', ['--session', `--dest=${destination}`, '--print-reply', '--reply-timeout=5000', ...args], {
      env: this.env,
      encoding: 'utf8',
      timeout: 10_000,
    });
    return `${result.stdout}${result.stderr}`;
  }
}
