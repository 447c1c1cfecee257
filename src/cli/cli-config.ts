import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** What the CLI remembers between commands besides the token: the deployment it talks to. */
export interface SavedConfig {
  readonly url?: string;
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
