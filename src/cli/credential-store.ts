import type { SecretStoreKind } from './cli-config.js';

/**
 * One place secrets can be kept: the OS keychain or the credentials file. Declared apart from
 * secret-store.ts, which builds both kinds, so the stores can name it without importing their maker.
 */
export interface CredentialStore {
  readonly kind: SecretStoreKind;
  get(account: string): Promise<string | undefined>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<void>;
}
