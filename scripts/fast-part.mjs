// Which of the CLI's lazily loaded modules belong to its fast part: the modules a plain command
// (whoami, ls, templates list…) runs, kept apart from the daemon, the agent and the terminal views
// so that such a command reads, compiles and runs only tens of kilobytes. Used by scripts/build.mjs
// (bin/cove's fast part) and scripts/package.mjs (the single executable's client part).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The most of our own source a lazily loaded module may reach (itself and all it imports,
 * statically or not; bundled packages such as commander, which every command loads, not counted)
 * and still be part of the fast part: the daemon and the agent reach megabytes, the plain commands
 * tens of kilobytes.
 */
export const FAST_PART_MODULE_LIMIT = 160 * 1024;

/** Modules that load every command to do their work: they need every command, so the full build. */
const NEEDS_EVERY_COMMAND = ['src/cli/commands/completion.ts'];

/**
 * From an esbuild metafile of the CLI: which dynamically imported source modules stay out of the
 * fast part. A module stays out when what it reaches is too large, reaches a package that cannot
 * be required (an ES-only one such as ink), or needs every command.
 *
 * `requirable(name)` says whether a package loads through require().
 */
export function modulesOutsideFastPart(metafile, requirable = packageRequirable()) {
  const inputs = metafile.inputs;
  const targets = new Set();
  for (const input of Object.values(inputs))
    for (const imported of input.imports) if (imported.kind === 'dynamic-import' && !imported.external) targets.add(imported.path);
  const outside = new Set();
  for (const target of targets) {
    const { bytes, packages } = reach(inputs, target);
    const blocked = [...packages].some((name) => !requirable(name));
    if (blocked || bytes > FAST_PART_MODULE_LIMIT || NEEDS_EVERY_COMMAND.includes(target)) outside.add(target);
  }
  return outside;
}

/** Everything `start` reaches through imports of any kind: our source's bytes and the external packages. */
function reach(inputs, start) {
  const seen = new Set();
  const packages = new Set();
  let bytes = 0;
  const visit = (path) => {
    if (seen.has(path)) return;
    seen.add(path);
    if (!path.includes('node_modules/')) bytes += inputs[path]?.bytes ?? 0;
    for (const imported of inputs[path]?.imports ?? []) {
      if (!imported.external) visit(imported.path);
      else if (!imported.path.startsWith('node:')) packages.add(imported.path);
    }
  };
  visit(start);
  return { bytes, packages };
}

/** Whether a package (or a subpath of one) loads with require() from this checkout, answered once each. */
function packageRequirable() {
  const require = createRequire(import.meta.url);
  const answers = new Map();
  return (name) => {
    if (!answers.has(name)) {
      let ok = true;
      try {
        require(name);
      } catch {
        ok = false;
      }
      answers.set(name, ok);
    }
    return answers.get(name);
  };
}

/**
 * Node's own modules that are not loaded at every start (child_process, readline, http…) cost a
 * few milliseconds each to load, and the CLI's modules import them all at their top: in the fast
 * part and the single executable's parts, each becomes an object whose properties load the module
 * when first read, so a command loads only the ones it uses (`--version` none of them).
 */
export function lazyBuiltins() {
  const require = createRequire(import.meta.url);
  // Modules whose exports are a plain object of functions, classes and constants, read and never
  // assigned through the import: the stand-in's getters keep their meaning. (A module that is a
  // function itself, such as node:stream or node:assert, or node:process, whose properties are
  // assigned, keeps its plain import; so do those loaded at every start anyway.)
  const lazy = new Set(
    [
      'child_process',
      'crypto',
      'dgram',
      'dns',
      'http',
      'http2',
      'https',
      'net',
      'os',
      'perf_hooks',
      'readline',
      'sea',
      'tls',
      'tty',
      'v8',
      'vm',
      'worker_threads',
      'zlib',
    ]
      .concat(['dns/promises', 'fs/promises', 'readline/promises', 'stream/promises', 'timers/promises'])
      .map((name) => `node:${name}`),
  );
  return {
    name: 'lazy-builtins',
    setup(builder) {
      builder.onResolve({ filter: /^node:/ }, (args) =>
        lazy.has(args.path) && args.namespace !== 'lazy-builtin' ? { path: args.path, namespace: 'lazy-builtin' } : undefined,
      );
      builder.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => {
        const names = Object.getOwnPropertyNames(require(args.path)).filter((name) => name !== 'default');
        return {
          contents:
            `let loaded; const load = () => (loaded ??= require(${JSON.stringify(args.path)}));\n` +
            `for (const name of ${JSON.stringify(names)}) Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });\n`,
          loader: 'js',
        };
      });
    },
  };
}

/**
 * In the fast part, a module it does not hold is a stand-in whose loading says so (src/cli/fast-entry.ts).
 * `outside` holds paths relative to `root`.
 */
export function standInsForFullBuild(outside, root) {
  return {
    name: 'stand-ins-for-full-build',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, async (args) => {
        const resolved = await resolvedDynamicImport(builder, args);
        if (resolved === undefined) return undefined;
        const path = relative(root, resolved.path);
        return outside.has(path) ? { path, namespace: 'full-build' } : undefined;
      });
      builder.onLoad({ filter: /.*/, namespace: 'full-build' }, () => ({
        contents: 'throw Object.assign(new Error("this command runs from the full build"), { code: "COVE_NOT_IN_FAST_PART" });',
        loader: 'js',
      }));
    },
  };
}

/** The plain commands a fast part's code cache is made from: their runs compile most of what each runs. */
const WARMING_COMMANDS = [['whoami'], ['ls'], ['templates', 'list']];

/**
 * Makes a fast part's code cache by running it, in this same Node: each of the plain commands
 * against a closed port, which fails once it has parsed its arguments, read its configuration and
 * made its request. V8 then has the functions those runs compiled, not only the top level (as a
 * cache made at compile time would), and a plain command compiles next to nothing.
 *
 * `source` is the part as it is run, wrapped as `(function (exports, require, module, __filename, __dirname) {…})`;
 * `requireFrom` is the file its require() resolves from; `cache` is written.
 */
export function warmFastPartCache({ source, cache, filename, requireFrom }) {
  const work = mkdtempSync(join(tmpdir(), 'cove-warm-cache-'));
  try {
    const script = join(work, 'part.cjs');
    writeFileSync(script, source);
    rmSync(cache, { force: true });
    const warm = fileURLToPath(new URL('warm-fast-part.cjs', import.meta.url));
    const result = spawnSync(process.execPath, [warm, script, cache, filename, requireFrom, JSON.stringify(WARMING_COMMANDS)], {
      env: { ...process.env, COVE_CONFIG_DIR: join(work, 'config'), NO_COLOR: '1' },
      encoding: 'utf8',
    });
    // Each command fails to connect, as meant; anything else is a broken part.
    const refused = (result.stderr ?? '').match(/ECONNREFUSED/g)?.length ?? 0;
    if (refused !== WARMING_COMMANDS.length || !existsSync(cache) || statSync(cache).size === 0) {
      throw new Error(`making the fast part's code cache failed:\n${result.stdout}${result.stderr}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * For an esbuild plugin's onResolve: where a dynamic import of our own source leads, as esbuild
 * would resolve it without the plugin; undefined for any other import, or one of a package.
 */
export async function resolvedDynamicImport(builder, args) {
  if (args.kind !== 'dynamic-import' || args.pluginData?.inner) return undefined;
  const resolved = await builder.resolve(args.path, {
    kind: args.kind,
    importer: args.importer,
    resolveDir: args.resolveDir,
    pluginData: { inner: true },
  });
  if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== 'file') return undefined;
  return resolved;
}
