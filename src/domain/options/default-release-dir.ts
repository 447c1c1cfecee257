import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { singleExecutablePath } from '../../lib/single-executable.js';

/**
 * Where `npm run package` leaves the single executables: next to the one this daemon runs from,
 * or else `dist/` of the checkout this module belongs to (it runs from `dist/` when built).
 */
export function defaultReleaseDir(): string {
  const single = singleExecutablePath();
  if (single !== undefined) return dirname(single);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5 && !existsSync(join(dir, 'package.json')); i++) dir = dirname(dir);
  return join(dir, 'dist');
}
