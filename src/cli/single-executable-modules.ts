// The single executable carries its code in three parts (scripts/package.mjs): the main script with
// what every start needs (the command table, argument parsing, `--version`); the client part, with
// the commands that only talk to a deployment (whoami, ls, templates list…); and the rest (the
// daemon, the agent, ssh…). Both of the latter are assets compiled, with V8's code cache, only when
// a command first loads a module of them: a plain command pays for a few hundred kilobytes, not
// megabytes. The parts reach each other's modules through the registry here, so every module exists
// once, with one state and one identity for `instanceof`.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getAsset } from 'node:sea';
import { constants, Script } from 'node:vm';
import { privateCacheDirectory } from '../lib/native-addons.js';

/** Filled in by `npm run package`: each part's script asset and a hash of its content. */
declare const COVE_PART_KEYS: Readonly<Record<string, string>>;

/** Where the packaged parts find each other's modules: a module's namespace by its source path. */
interface ModuleRegistry {
  mainModule(path: string): object;
  clientModule(path: string): object;
  lazyModule(path: string): object;
}

/**
 * The assets of a part: CommonJS wrapped as `(function (exports, require, module, __filename, __dirname) {…})`,
 * exporting `modules` (namespaces by source path), and V8's code cache for it, made by the same Node
 * at packaging time.
 */
interface PartAssets {
  readonly script: string;
  readonly cache: string;
}

/** The client part: the modules of the commands that only talk to a deployment. */
export const CLIENT_PART: PartAssets = { script: 'client-part.cjs', cache: 'client-part.cache' };
/** The rest: the daemon, the agent and the commands that need them or large packages. */
export const LAZY_PART: PartAssets = { script: 'lazy-part.cjs', cache: 'lazy-part.cache' };

/**
 * Makes the main part's modules (`main`, namespaces by source path) available to the other parts,
 * and theirs to the main part, loading each on first use.
 */
export function installModuleRegistry(main: Readonly<Record<string, object>>): void {
  let client: Readonly<Record<string, object>> | undefined;
  let lazy: Readonly<Record<string, object>> | undefined;
  const clientModules = () => (client ??= loadPart(CLIENT_PART));
  const registry: ModuleRegistry = {
    mainModule: (path) => asCommonJs(main, path),
    clientModule: (path) => asCommonJs(clientModules(), path),
    // A dynamic import of the main part leads to either part: the small one is asked first.
    lazyModule: (path) => asCommonJs(path in clientModules() ? clientModules() : (lazy ??= loadPart(LAZY_PART)), path),
  };
  (globalThis as { __coveModules?: ModuleRegistry }).__coveModules = registry;
}

function loadPart(part: PartAssets): Readonly<Record<string, object>> {
  const saved = savedCacheFile(part);
  const savedData = saved === undefined ? undefined : readSaved(saved);
  const script = new Script(getAsset(part.script, 'utf8'), {
    filename: `cove-${part.script}`,
    cachedData: savedData ?? Buffer.from(getAsset(part.cache)),
    // Its `import()` calls (an ES module carried as an asset, a configuration file) load as the main script's would.
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (script.cachedDataRejected === true && process.env['COVE_DEBUG_SINGLE_EXECUTABLE']) {
    console.error(`cove: the code cache of the single executable's ${part.script} was rejected; starting without it`);
  }
  // The packaged cache holds only the part's top level: the functions a command runs are compiled
  // as it runs them. A cache made after a run holds those too, and the next run starts from it.
  if (saved !== undefined && (savedData === undefined || script.cachedDataRejected === true)) {
    process.once('beforeExit', () => saveCache(saved, script.createCachedData()));
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

/**
 * Where a run's code cache of `part` is kept: beside the native addons, named for the part's content
 * (V8 checks a cache only against the length of its source, so another build's must never be found).
 * Undefined where there is no cache directory to use.
 */
function savedCacheFile(part: PartAssets): string | undefined {
  const key = COVE_PART_KEYS[part.script];
  if (key === undefined) return undefined;
  try {
    return join(privateCacheDirectory(), `${part.script}.${key}.v8cache`);
  } catch {
    return undefined;
  }
}

function readSaved(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Written beside and renamed into place, so that a run that reads it meanwhile sees a whole file or none. */
function saveCache(file: string, data: Buffer): void {
  try {
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, data, { mode: 0o600 });
    renameSync(partial, file);
  } catch {
    // A read-only or full cache directory: the next run compiles as this one did.
  }
}
