// Which of the CLI's lazily loaded modules belong to its fast part: the modules a plain command
// (whoami, ls, templates list…) runs, kept apart from the daemon, the agent and the terminal views
// so that such a command reads, compiles and runs only tens of kilobytes. Used by scripts/build.mjs
// (bin/cove's fast part) and scripts/package.mjs (the single executable's client part).
import { createRequire } from 'node:module';

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
