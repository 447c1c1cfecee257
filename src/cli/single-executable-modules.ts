// The single executable carries its code as assets (scripts/package.mjs), each compiled with V8's
// code cache only when needed. Its main script (src/cli/single-executable-start.ts) runs the fast
// part, one bundle of the commands that only talk to a deployment (whoami, ls, templates list…) as
// bin/cove's dist/cli-fast.cjs is, whose cache was made by running a command: a plain command
// compiles next to nothing. Any other command runs from the full CLI instead, decided before
// anything runs, in three parts: the main part with what every command needs (the command table,
// argument parsing); the client part, with the plain commands; and the rest (the daemon, the agent,
// ssh…), loaded when a command first needs a module of them. These three reach each other's
// modules through the registry here, so every module exists once, with one state and one identity
// for `instanceof`.
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

/** The fast part: the plain commands, whole (src/cli/fast-entry.ts), with a code cache made by running one. */
export const FAST_PART: PartAssets = { script: 'fast-part.cjs', cache: 'fast-part.cache' };
/** The full CLI's main part: what every command needs; it runs the command line when loaded (src/cli/single-executable-entry.ts). */
export const MAIN_PART: PartAssets = { script: 'main-part.cjs', cache: 'main-part.cache' };
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
  return (runPart(part) as { modules?: Record<string, object> }).modules ?? {};
}

/** Compiles a part with its code cache and runs it; returns what it exports. */
export function runPart(part: PartAssets): unknown {
  const script = new Script(getAsset(part.script, 'utf8'), {
    filename: `cove-${part.script}`,
    cachedData: Buffer.from(getAsset(part.cache)),
    // Its `import()` calls (an ES module carried as an asset, a configuration file) load as the main script's would.
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  // Which parts a command loads, and whether their caches served: what start-up costs depend on.
  if (process.env['COVE_DEBUG_SINGLE_EXECUTABLE']) {
    console.error(
      `cove: loading ${part.script}, ${script.cachedDataRejected === true ? 'its code cache rejected' : 'with its code cache'}`,
    );
  }
  const wrapper = script.runInThisContext() as (
    exports: object,
    require: NodeJS.Require,
    module: { exports: object },
    filename: string,
    dirname: string,
  ) => void;
  const module = { exports: {} };
  // As in the main script, the executable stands for the module file.
  wrapper(module.exports, createRequire(process.execPath), module, process.execPath, dirname(process.execPath));
  return module.exports;
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
