import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where session tokens are kept between commands. */
export interface SecretStore {
  readonly kind: 'keychain' | 'file';
  get(account: string): Promise<string | undefined>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<void>;
}

const SERVICE = 'cove';
const PROBE_TIMEOUT_MS = 2500;

interface Keytar {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  findCredentials(service: string): Promise<unknown[]>;
}

/**
 * The OS keychain through keytar when one answers, else a 0600 file in the config directory.
 * `COVE_SECRET_STORE=file` skips the keychain: CI and tests use it, and so should any headless
 * machine whose D-Bus session has a broken secret service (a probe there can stall for seconds).
 */
export async function openSecretStore(configDir: string, env: Readonly<Record<string, string | undefined>>): Promise<SecretStore> {
  const file = new FileSecretStore(join(configDir, 'credentials.json'));
  if (env['COVE_SECRET_STORE'] === 'file') return file;
  const keytar = await loadKeytar();
  if (!keytar) return file;
  const usable = await withTimeout(
    keytar.findCredentials(SERVICE).then(() => true),
    PROBE_TIMEOUT_MS,
  ).catch(() => false);
  return usable ? new KeychainSecretStore(keytar) : file;
}

async function loadKeytar(): Promise<Keytar | undefined> {
  try {
    // A variable specifier keeps bundlers from trying to include the optional native module.
    const specifier = 'keytar';
    const loaded = (await import(specifier)) as { default?: Keytar } & Keytar;
    return loaded.default ?? loaded;
  } catch {
    return undefined;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('keychain did not answer')), ms);
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

class KeychainSecretStore implements SecretStore {
  readonly kind = 'keychain' as const;
  readonly #keytar: Keytar;

  constructor(keytar: Keytar) {
    this.#keytar = keytar;
  }

  async get(account: string): Promise<string | undefined> {
    return (await this.#keytar.getPassword(SERVICE, account)) ?? undefined;
  }

  async set(account: string, secret: string): Promise<void> {
    await this.#keytar.setPassword(SERVICE, account, secret);
  }

  async delete(account: string): Promise<void> {
    await this.#keytar.deletePassword(SERVICE, account);
  }
}

/** Secrets in one JSON file, written through a temporary file and a rename so it is never half-written. */
export class FileSecretStore implements SecretStore {
  readonly kind = 'file' as const;
  readonly #path: string;

  constructor(path: string) {
    this.#path = path;
  }

  async get(account: string): Promise<string | undefined> {
    return this.#read()[account];
  }

  async set(account: string, secret: string): Promise<void> {
    this.#write({ ...this.#read(), [account]: secret });
  }

  async delete(account: string): Promise<void> {
    const { [account]: _removed, ...rest } = this.#read();
    this.#write(rest);
  }

  #read(): Record<string, string> {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.#path, 'utf8'));
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
    } catch {
      return {};
    }
  }

  #write(secrets: Record<string, string>): void {
    const dir = join(this.#path, '..');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temporary = `${this.#path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.#path);
  }
}
