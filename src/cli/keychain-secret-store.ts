import { callKeychain, KeychainError, type KeychainRequest } from './keychain-call.js';
import type { CredentialStore } from './credential-store.js';

const SERVICE = 'cove';

/**
 * How long one keychain call may take, child start-up included (about 0.1 s on an idle machine,
 * a D-Bus round trip is milliseconds): short enough that a command that meets a hung keychain
 * still finishes within a few seconds.
 */
const CALL_DEADLINE_MS = 2000;

/**
 * Secrets in the OS keychain (service `cove`, account = deployment URL). Every call runs in a
 * child with a deadline (see `callKeychain`); after one call timed out the rest of the command
 * fails at once instead of waiting again.
 */
export class KeychainSecretStore implements CredentialStore {
  readonly kind = 'keychain' as const;
  readonly #env: Readonly<Record<string, string | undefined>>;
  #unresponsive: KeychainError | undefined;

  constructor(env: Readonly<Record<string, string | undefined>>) {
    this.#env = env;
  }

  async get(account: string): Promise<string | undefined> {
    const value = await this.#call({ operation: 'get', service: SERVICE, account });
    return typeof value === 'string' ? value : undefined;
  }

  async set(account: string, secret: string): Promise<void> {
    await this.#call({ operation: 'set', service: SERVICE, account, secret });
  }

  async delete(account: string): Promise<void> {
    await this.#call({ operation: 'delete', service: SERVICE, account });
  }

  async #call(request: KeychainRequest): Promise<unknown> {
    if (this.#unresponsive) throw this.#unresponsive;
    try {
      return await callKeychain(request, this.#env, CALL_DEADLINE_MS);
    } catch (error) {
      if (error instanceof KeychainError && error.timedOut) this.#unresponsive = error;
      throw error;
    }
  }
}
