import { homedir } from 'node:os';
import { join } from 'node:path';

/** The default data directory: under the user's data directory, as XDG places it. */
export function defaultDataDir(): string {
  const base = process.env['XDG_DATA_HOME'] || join(homedir(), '.local', 'share');
  return join(base, 'cove');
}
