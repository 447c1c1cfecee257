import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where a deployment's session token is kept: the OS keychain, or `credentials.json` (0600). */
export type SecretStoreKind = 'keychain' | 'file';

/** What the CLI remembers between commands besides the token: the deployment it talks to. */
export interface SavedConfig {
  readonly url?: string;
  /**
   * The store `cove login` put each deployment's token in, by URL, so every later command reads
   * and removes it there and a token never ends up split between two stores.
   */
  readonly secret_stores?: Readonly<Record<string, SecretStoreKind>>;
}

/** The CLI's config directory: `COVE_CONFIG_DIR`, else the user's config directory. */
export function configDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env['COVE_CONFIG_DIR']) return env['COVE_CONFIG_DIR'];
  const base = env['XDG_CONFIG_HOME'] || join(homedir(), '.config');
  return join(base, 'cove');
}

/** Reads the saved config; a missing or unreadable file reads as empty. */
export function readSavedConfig(dir: string): SavedConfig {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as SavedConfig) : {};
  } catch {
    return {};
  }
}

/** Saves the config. */
export function writeSavedConfig(dir: string, config: SavedConfig): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}

/** The store recorded for a deployment; one never recorded (signed in before stores were recorded, or never) is the file. */
export function recordedSecretStore(config: SavedConfig, url: string): SecretStoreKind {
  return config.secret_stores?.[url] === 'keychain' ? 'keychain' : 'file';
}

/** Records (or, with `undefined`, forgets) the store holding a deployment's token. */
export function recordSecretStore(dir: string, url: string, kind: SecretStoreKind | undefined): void {
  const config = readSavedConfig(dir);
  const { [url]: _previous, ...others } = config.secret_stores ?? {};
  const secretStores = kind ? { ...others, [url]: kind } : others;
  writeSavedConfig(dir, { ...config, secret_stores: secretStores });
}
