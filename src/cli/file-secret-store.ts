import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CredentialStore } from './credential-store.js';

/** Secrets in one JSON file, written through a temporary file and a rename so it is never half-written. */
export class FileSecretStore implements CredentialStore {
  readonly kind = 'file' as const;
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  async get(account: string): Promise<string | undefined> {
    return this.#read()[account];
  }

  async set(account: string, secret: string): Promise<void> {
    this.#write({ ...this.#read(), [account]: secret });
  }

  async delete(account: string): Promise<void> {
    const secrets = this.#read();
    if (!(account in secrets)) return;
    const { [account]: _removed, ...rest } = secrets;
    this.#write(rest);
  }

  #read(): Record<string, string> {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.path, 'utf8'));
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
    } catch {
      return {};
    }
  }

  #write(secrets: Record<string, string>): void {
    const dir = join(this.path, '..');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.path);
  }
}
