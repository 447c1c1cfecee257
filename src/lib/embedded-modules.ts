import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { extractAsset } from './native-addons.js';

/** A CommonJS file of the single executable that does nothing but `import()`: see {@link importEmbeddedModule}. */
export const MODULE_IMPORTER_ASSET = 'import-module.cjs';

/**
 * Loads an ES module embedded in the single executable, such as the ink view of the health report,
 * which needs top-level await and so cannot be part of the executable's CommonJS main script. The
 * main script, compiled with a code cache, cannot `import()`; a small CommonJS file loaded from the
 * cache directory can, so both are written there (hash-checked) and the file does the import.
 */
export async function importEmbeddedModule<T>(name: string): Promise<T> {
  const file = extractAsset(name);
  const importer = extractAsset(MODULE_IMPORTER_ASSET);
  const load = createRequire(importer)(importer) as (url: string) => Promise<T>;
  return load(pathToFileURL(file).href);
}
