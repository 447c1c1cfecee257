// The single executable carries its code in three parts (scripts/package.mjs): the main script with
// what every start needs (the command table, argument parsing, `--version`); the client part, with
// the commands that only talk to a deployment (whoami, ls, templates list…); and the rest (the
// daemon, the agent, ssh…). Both of the latter are assets compiled, with V8's code cache, only when
// a command first loads a module of them: a plain command pays for a few hundred kilobytes, not
// megabytes. The parts reach each other's modules through the registry here, so every module exists
// once, with one state and one identity for `instanceof`.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { getAsset } from 'node:sea';
import { constants, Script } from 'node:vm';

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
  const script = new Script(getAsset(part.script, 'utf8'), {
    filename: `cove-${part.script}`,
    cachedData: Buffer.from(getAsset(part.cache)),
    // Its `import()` calls (an ES module carried as an asset, a configuration file) load as the main script's would.
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (script.cachedDataRejected === true && process.env['COVE_DEBUG_SINGLE_EXECUTABLE']) {
    console.error(`cove: the code cache of the single executable's ${part.script} was rejected; starting without it`);
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
