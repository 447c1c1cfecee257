import { join } from 'node:path';
import { CliError } from './cli-error.js';
import { readSavedConfig, recordedSecretStore, recordSecretStore, type SecretStoreKind } from './cli-config.js';
import { FileSecretStore } from './file-secret-store.js';
import { KeychainSecretStore } from './keychain-secret-store.js';

/**
 * The session tokens of every deployment, each in the one store `cove login` chose for it and
 * recorded in the config, so reading and removing a token never guesses where it is.
 */
export interface SecretStore {
  /** The stored token for a deployment; fails with a clear message when its keychain cannot be read. */
  get(url: string): Promise<string | undefined>;
  /**
   * Stores a new token and records where. The keychain is tried first unless
   * `COVE_SECRET_STORE=file`; when it cannot take the token the file does, and `notice` gets one
   * line saying so. `COVE_SECRET_STORE=keychain` makes that a failure instead.
   */
  save(url: string, token: string, notice: (line: string) => void): Promise<SecretStoreKind>;
  /** Removes a deployment's token from wherever it is and forgets the record. */
  delete(url: string): Promise<void>;
}

const CHOOSE_HINT = 'set COVE_SECRET_STORE=keychain or COVE_SECRET_STORE=file to choose';

/** Opens the stores of the config directory; nothing touches the keychain until a token kept there is needed. */
export async function openSecretStore(configDir: string, env: Readonly<Record<string, string | undefined>>): Promise<SecretStore> {
  return new RecordedSecretStores(configDir, env);
}

class RecordedSecretStores implements SecretStore {
  readonly #configDir: string;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #file: FileSecretStore;
  #keychain: KeychainSecretStore | undefined;

  constructor(configDir: string, env: Readonly<Record<string, string | undefined>>) {
    this.#configDir = configDir;
    this.#env = env;
    this.#file = new FileSecretStore(join(configDir, 'credentials.json'));
  }

  async get(url: string): Promise<string | undefined> {
    if (this.#recorded(url) === 'file') return this.#file.get(url);
    try {
      return await this.#openKeychain().get(url);
    } catch (error) {
      // Degrade to the file: a token there (put by hand, or by an older cove) still works.
      const fromFile = await this.#file.get(url);
      if (fromFile) return fromFile;
      throw new CliError(`Could not read the session token for ${url} from the keychain: ${reason(error)}.`, {
        hint: `Unlock the keyring and try again, or sign in with the token in a file: COVE_SECRET_STORE=file cove login ${url}`,
      });
    }
  }

  async save(url: string, token: string, notice: (line: string) => void): Promise<SecretStoreKind> {
    const wanted = this.#wantedStore();
    const previous = this.#recorded(url);
    let kind: SecretStoreKind = 'file';
    if (wanted !== 'file') {
      try {
        await this.#openKeychain().set(url, token);
        kind = 'keychain';
      } catch (error) {
        if (wanted === 'keychain') {
          throw new CliError(`Could not store the session token in the keychain: ${reason(error)}.`, {
            hint: 'Unlock the keyring and sign in again, or keep the token in a file with COVE_SECRET_STORE=file.',
          });
        }
        notice(
          `The keychain could not store the session token (${reason(error)}); it is in ${this.#file.path} (mode 0600) instead; ${CHOOSE_HINT}.`,
        );
      }
    }
    if (kind === 'file') await this.#file.set(url, token);
    else await this.#file.delete(url);
    if (kind === 'file' && previous === 'keychain') {
      try {
        await this.#openKeychain().delete(url);
      } catch (error) {
        notice(`An older session token for ${url} may remain in the keychain (${reason(error)}).`);
      }
    }
    recordSecretStore(this.#configDir, url, kind);
    return kind;
  }

  async delete(url: string): Promise<void> {
    await this.#file.delete(url);
    if (this.#recorded(url) === 'keychain') {
      try {
        await this.#openKeychain().delete(url);
      } catch (error) {
        throw new CliError(`Could not remove the session token for ${url} from the keychain: ${reason(error)}.`, {
          hint: 'Unlock the keyring and run "cove logout" again.',
        });
      }
    }
    recordSecretStore(this.#configDir, url, undefined);
  }

  #recorded(url: string): SecretStoreKind {
    return recordedSecretStore(readSavedConfig(this.#configDir), url);
  }

  #wantedStore(): SecretStoreKind | undefined {
    const value = this.#env['COVE_SECRET_STORE'];
    if (value === undefined || value === '') return undefined;
    if (value === 'keychain' || value === 'file') return value;
    throw new CliError(`COVE_SECRET_STORE is "${value}"; it must be "keychain" or "file".`);
  }

  #openKeychain(): KeychainSecretStore {
    this.#keychain ??= new KeychainSecretStore(this.#env);
    return this.#keychain;
  }
}

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim().replace(/\.$/, '');
}
