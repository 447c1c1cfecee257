// The single executable carries its code in two parts (scripts/package.mjs): the main script with
// what every start needs (the command table, argument parsing, `--version`), and the rest as an
// asset compiled only when a command first loads a module of it. Start-up then pays for tens of
// kilobytes of code, not megabytes. The two parts reach each other's modules through the registry
// here, so every module exists once, with one state and one identity for `instanceof`.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { getAsset } from 'node:sea';
import { constants, Script } from 'node:vm';

/** Where the packaged parts find each other's modules: a module's namespace by its source path. */
interface ModuleRegistry {
  mainModule(path: string): object;
  lazyModule(path: string): object;
}

/** The asset with the second part: CommonJS wrapped as `(function (exports, require, module, __filename, __dirname) {…})`. */
export const LAZY_PART_ASSET = 'lazy-part.cjs';
/** V8's code cache for that script, made by the same Node at packaging time. */
export const LAZY_PART_CACHE_ASSET = 'lazy-part.cache';

/**
 * Makes the main part's modules (`main`, namespaces by source path) available to the second part,
 * and the second part's to the main part, loading it on first use.
 */
export function installModuleRegistry(main: Readonly<Record<string, object>>): void {
  let lazy: Readonly<Record<string, object>> | undefined;
  const registry: ModuleRegistry = {
    mainModule: (path) => asCommonJs(main, path),
    lazyModule: (path) => asCommonJs((lazy ??= loadLazyPart()), path),
  };
  (globalThis as { __coveModules?: ModuleRegistry }).__coveModules = registry;
}

function loadLazyPart(): Readonly<Record<string, object>> {
  const script = new Script(getAsset(LAZY_PART_ASSET, 'utf8'), {
    filename: 'cove-lazy-part.cjs',
    cachedData: Buffer.from(getAsset(LAZY_PART_CACHE_ASSET)),
    // Its `import()` calls (an ES module carried as an asset, a configuration file) load as the main script's would.
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (script.cachedDataRejected === true && process.env['COVE_DEBUG_SINGLE_EXECUTABLE']) {
    console.error('cove: the code cache of the single executable was rejected; starting without it');
  }
  const wrapper = script.runInThisContext() as (
    exports: object,
    require: NodeJS.Require,
    module: { exports: object },
    filename: string,
    dirname: string,
  ) => void;
  const module = { exports: {} as { modules?: Record<string, object> } };
  // As in the main script, the executable stands for the module file.
  wrapper(module.exports, createRequire(process.execPath), module, process.execPath, dirname(process.execPath));
  return module.exports.modules ?? {};
}

/**
 * A module namespace as the bundler's CommonJS interop expects an ES module: live getters for its
 * exports and the `__esModule` mark, so that its default export stays its default export.
 */
function asCommonJs(modules: Readonly<Record<string, object>>, path: string): object {
  const namespace = modules[path] as Record<string, unknown> | undefined;
  if (namespace === undefined) throw new Error(`the single executable has no module ${path}`);
  const exports: Record<string, unknown> = { __esModule: true };
  for (const key of Object.keys(namespace)) Object.defineProperty(exports, key, { enumerable: true, get: () => namespace[key] });
  return exports;
}
