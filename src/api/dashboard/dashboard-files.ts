import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as sea from 'node:sea';
import { singleExecutablePath } from '../../lib/single-executable.js';

/** Files the daemon serves as they are: the built dashboard, or the app icons. */
export interface StaticFiles {
  /** Where they come from, for the log and the page that says the dashboard is missing. */
  readonly origin: string;
  /** A file by its path below the root (`assets/main-3F2A.js`, already checked), or undefined when there is none. */
  read(path: string): Promise<Buffer | undefined>;
}

/** The SEA asset names under which scripts/package.mjs stores the dashboard and the icons. */
export const DASHBOARD_ASSET_PREFIX = 'web/';
export const ICON_ASSET_PREFIX = 'icons/';

/** The page every dashboard route answers; the app in the browser reads the path itself. */
export const DASHBOARD_INDEX = 'index.html';

/** Files of a directory on disk, read on every request (the OS caches them; a rebuild shows at once). */
export function directoryFiles(root: string): StaticFiles {
  const base = resolve(root);
  return {
    origin: base,
    async read(path) {
      const file = resolve(base, path);
      // The path was checked segment by segment already; this holds whatever a caller passes.
      if (!file.startsWith(base + sep)) return undefined;
      try {
        return await readFile(file);
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
  };
}

/** Files carried by the single executable as SEA assets named `prefix + path`, kept once read. */
export function embeddedFiles(prefix: string): StaticFiles {
  const cache = new Map<string, Buffer | undefined>();
  return {
    origin: `the single executable (${prefix}*)`,
    async read(path) {
      if (!cache.has(path)) cache.set(path, rawAsset(prefix + path));
      return cache.get(path);
    },
  };
}

function rawAsset(name: string): Buffer | undefined {
  try {
    // No copy: the executable's own bytes, which nothing here changes.
    const raw = sea.getRawAsset(name);
    return typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(raw);
  } catch {
    return undefined;
  }
}

/**
 * Where the built dashboard is: `dashboardDirectory` when given (tests), the SEA assets in the
 * single executable, else the first of `dist/web` beside the bundled code and the checkout's
 * `dist/web` (a daemon run from the sources) that holds an `index.html`. Undefined when none does:
 * the dashboard was not built.
 */
export function locateDashboard(dashboardDirectory: string | undefined): StaticFiles | undefined {
  if (dashboardDirectory !== undefined) {
    return existsSync(join(dashboardDirectory, DASHBOARD_INDEX)) ? directoryFiles(dashboardDirectory) : undefined;
  }
  if (singleExecutablePath() !== undefined) {
    const files = embeddedFiles(DASHBOARD_ASSET_PREFIX);
    return rawAsset(DASHBOARD_ASSET_PREFIX + DASHBOARD_INDEX) ? files : undefined;
  }
  // Bundled, this module is a chunk in dist/; from the sources it is src/api/dashboard/.
  const candidates = [new URL('web/', import.meta.url), new URL('../../../dist/web/', import.meta.url)].map((url) => fileURLToPath(url));
  const found = candidates.find((dir) => existsSync(join(dir, DASHBOARD_INDEX)));
  return found === undefined ? undefined : directoryFiles(found);
}

/** The app icons: SEA assets in the single executable, else `icons/` beside this module (dist/icons once built). */
export function iconFiles(): StaticFiles {
  if (singleExecutablePath() !== undefined) return embeddedFiles(ICON_ASSET_PREFIX);
  return directoryFiles(fileURLToPath(new URL('icons/', import.meta.url)));
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}
