// Builds the single executable dist/cove-linux-<arch>: this node binary with the whole CLI, daemon
// and agent injected as a Node single executable application (SEA). The bundle is the SEA's main
// script (CommonJS, as Node 20 requires, with V8's code cache for start-up); the native addons
// travel as SEA assets that src/lib/native-addons.ts writes to a cache directory and loads from
// there. Packages with a pure-JS fallback get it (ssh2 without sshcrypto.node and cpu-features).
// The web dashboard (dist/web, which `npm run build` makes: build first) and the app icons are
// assets as well, served from the executable by the daemon.
// Prints the file's size and writes dist/SHA256SUMS.
//
// COVE_PACKAGE_OUTPUT=<file> writes the executable elsewhere (the end-to-end tests use it, since
// `npm run build` empties dist/).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { lazyBuiltins, modulesOutsideFastPart, resolvedDynamicImport, standInsForFullBuild, warmFastPartCache } from './fast-part.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const packageVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
const arch = process.arch;
if (process.platform !== 'linux' || (arch !== 'x64' && arch !== 'arm64')) {
  console.error(`npm run package builds for linux-x64 and linux-arm64 only (this is ${process.platform}-${arch})`);
  process.exit(1);
}
const output = resolve(process.env.COVE_PACKAGE_OUTPUT ?? join(root, 'dist', `cove-linux-${arch}`));
/** Ends the path of a stand-in module: the bundler takes a file's format from its name, and these are CommonJS. */
const SHIM = '.shim.cjs';

const fromModules = (...parts) => join(root, 'node_modules', ...parts);

/** The addons the executable carries, by the file name the loader asks for. */
const addons = {
  'better_sqlite3.node': fromModules('better-sqlite3', 'build', 'Release', 'better_sqlite3.node'),
  'pty.node': fromModules('node-pty', 'build', 'Release', 'pty.node'),
  'bufferutil.node': fromModules('bufferutil', 'prebuilds', `linux-${arch}`, 'bufferutil.node'),
  [`keyring.linux-${arch}-gnu.node`]: fromModules('@napi-rs', `keyring-linux-${arch}-gnu`, `keyring.linux-${arch}-gnu.node`),
};

const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'cove-package-'));
try {
  // The terminal view of the health report uses ink, whose modules (and yoga's) await at top level:
  // they cannot be part of the CommonJS main script, so they travel as an ES module of their own,
  // written to the cache directory and imported from there (src/lib/embedded-modules.ts).
  const healthView = join(work, 'health-report-view.mjs');
  await build({
    entryPoints: [join(root, 'src', 'cli', 'health-report-view.ts')],
    outfile: healthView,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    logLevel: 'error',
    // CommonJS dependencies of ink call require() for Node's modules, which an ES module lacks.
    banner: { js: 'import { createRequire as coveRequire } from "node:module"; const require = coveRequire(import.meta.url);' },
    plugins: [absentDevtoolsPlugin()],
  });
  const importer = join(work, 'import-module.cjs');
  writeFileSync(importer, 'module.exports = (url) => import(url);\n');
  addons['health-report-view.mjs'] = healthView;
  addons['import-module.cjs'] = importer;
  const hashes = Object.fromEntries(Object.entries(addons).map(([name, file]) => [name, sha256(readFileSync(file))]));

  const common = {
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    logLevel: 'error',
    absWorkingDir: root,
    define: {
      COVE_NATIVE_ADDONS: JSON.stringify(hashes),
      // Nothing in a bundle has a module file; what asks for one gets the executable's.
      'import.meta.url': 'COVE_MODULE_URL',
    },
    banner: { js: 'var COVE_MODULE_URL=require("node:url").pathToFileURL(process.execPath).href;' },
  };
  const entry = join('src', 'cli', 'single-executable-entry.ts');

  // The main part is what the entry reaches by static imports; every dynamic import leads to the
  // second part. A first build tells which modules the main part holds.
  const lazyTargets = new Set();
  const probe = await build({
    ...common,
    entryPoints: [entry],
    outfile: join(work, 'probe.cjs'),
    write: false,
    metafile: true,
    plugins: [lazyBuiltins(), nativeAddonsPlugin(), embeddedHealthViewPlugin(), lazyImportsPlugin(lazyTargets)],
  });
  // CommonJS files (commander's own) stay private to the part that has them: the second part
  // reaches them only through an ES module of the main part.
  const shared = Object.entries(probe.metafile.inputs)
    .filter(([path, input]) => input.format === 'esm' && !path.includes(':'))
    .map(([path]) => path);

  const bundle = join(work, 'main.cjs');
  await build({
    ...common,
    stdin: {
      contents: [
        `import { installModuleRegistry } from './src/cli/single-executable-modules.ts';`,
        ...shared.map((path, i) => `import * as m${i} from ${JSON.stringify(`./${path}`)};`),
        `installModuleRegistry({ ${shared.map((path, i) => `${JSON.stringify(path)}: m${i}`).join(', ')} });`,
        `import ${JSON.stringify(`./${entry}`)};`,
      ].join('\n'),
      resolveDir: root,
      sourcefile: 'single-executable-main.ts',
      loader: 'ts',
    },
    outfile: bundle,
    plugins: [lazyBuiltins(), nativeAddonsPlugin(), embeddedHealthViewPlugin(), lazyImportsPlugin(lazyTargets)],
  });

  // The lazily loaded modules split as bin/cove's are (scripts/fast-part.mjs): the plain commands'
  // into the client part, the daemon, the agent and the rest into the last part.
  const outside = modulesOutsideFastPart(
    (
      await build({
        entryPoints: [join('src', 'cli', 'entry.ts')],
        absWorkingDir: root,
        outdir: join(work, 'split-probe'),
        bundle: true,
        splitting: true,
        format: 'esm',
        platform: 'node',
        target: 'node20',
        write: false,
        metafile: true,
        logLevel: 'error',
        plugins: [packagesExternalExcept(['commander'])],
      })
    ).metafile,
  );
  const clientTargets = [...lazyTargets].filter((path) => !outside.has(path));
  const lazy = [...lazyTargets].filter((path) => outside.has(path));

  // The client part exports every ES module it holds, so that the last part shares them.
  const clientPlugins = [
    nativeAddonsPlugin(),
    embeddedHealthViewPlugin(),
    sharedModulesPlugin(new Map(shared.map((path) => [path, 'mainModule']))),
  ];
  const clientSource = 'single-executable-client.ts';
  const clientProbe = await build({
    ...common,
    stdin: {
      contents: clientTargets.map((path) => `import ${JSON.stringify(`./${path}`)};`).join('\n'),
      resolveDir: root,
      sourcefile: clientSource,
      loader: 'ts',
    },
    outfile: join(work, 'client-probe.cjs'),
    write: false,
    metafile: true,
    plugins: clientPlugins,
  });
  const clientShared = Object.entries(clientProbe.metafile.inputs)
    .filter(([path, input]) => input.format === 'esm' && !path.includes(':') && path !== clientSource)
    .map(([path]) => path);
  const clientBundle = join(work, 'client.cjs');
  await build({
    ...common,
    stdin: {
      contents: lazyModules(clientShared),
      resolveDir: root,
      sourcefile: clientSource,
      loader: 'ts',
    },
    outfile: clientBundle,
    plugins: clientPlugins,
  });

  const lazyBundle = join(work, 'lazy.cjs');
  await build({
    ...common,
    stdin: {
      contents: lazyModules(lazy),
      resolveDir: root,
      sourcefile: 'single-executable-lazy.ts',
      loader: 'ts',
    },
    outfile: lazyBundle,
    plugins: [
      lazyBuiltins(),
      nativeAddonsPlugin(),
      embeddedHealthViewPlugin(),
      sharedModulesPlugin(new Map([...shared.map((path) => [path, 'mainModule']), ...clientShared.map((path) => [path, 'clientModule'])])),
    ],
  });
  // The fast part: the plain commands whole, as bin/cove's dist/cli-fast.cjs, with every package
  // bundled; a command it lacks is a stand-in that sends the run to the full CLI.
  const fastBundle = join(work, 'fast.cjs');
  await build({
    ...common,
    entryPoints: [join('src', 'cli', 'fast-entry.ts')],
    outfile: fastBundle,
    // An import() becomes a require() of the bundled module, as scripts/fast-part.mjs checked it can be.
    supported: { 'dynamic-import': false },
    plugins: [lazyBuiltins(), nativeAddonsPlugin(), embeddedHealthViewPlugin(), standInsForFullBuild(outside, root)],
  });
  const fastPart = partAssets(fastBundle, 'fast-part');
  warmFastPartCache({
    source: readFileSync(fastPart['fast-part.cjs'], 'utf8'),
    cache: fastPart['fast-part.cache'],
    filename: 'cove-fast-part.cjs',
    requireFrom: process.execPath,
  });

  // The main script holds only the choice between the fast part and the full CLI.
  const start = join(work, 'cove.cjs');
  await build({
    ...common,
    entryPoints: [join('src', 'cli', 'single-executable-start.ts')],
    outfile: start,
    // `cove --version` alone is answered before any part is read (the script is CommonJS, so its
    // top level may return), as bin/cove answers it.
    banner: {
      js: [
        `if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {`,
        `  process.stdout.write(${JSON.stringify(`${packageVersion}\n`)});`,
        `  return;`,
        `}`,
      ].join('\n'),
    },
    plugins: [lazyBuiltins()],
  });

  const parts = {
    ...fastPart,
    ...partAssets(bundle, 'main-part'),
    ...partAssets(clientBundle, 'client-part'),
    ...partAssets(lazyBundle, 'lazy-part'),
  };
  const web = webAssets();
  const kB = (name) => `${(statSync(parts[name]).size / 1e3).toFixed(0)} kB`;
  console.log(
    `main script ${(statSync(start).size / 1e3).toFixed(1)} kB, fast part ${kB('fast-part.cjs')} (code cache ${kB('fast-part.cache')}); ` +
      `full CLI: main part ${kB('main-part.cjs')} (${shared.length} modules), client part ${kB('client-part.cjs')} (${clientShared.length} modules), last part ${(statSync(parts['lazy-part.cjs']).size / 1e6).toFixed(1)} MB`,
  );

  const blob = join(work, 'sea.blob');
  const config = join(work, 'sea-config.json');
  writeFileSync(
    config,
    JSON.stringify(
      { main: start, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets: { ...addons, ...parts, ...web } },
      null,
      2,
    ),
  );
  run(process.execPath, ['--experimental-sea-config', config]);

  mkdirSync(dirname(output), { recursive: true });
  const partial = `${output}.partial`;
  copyFileSync(process.execPath, partial);
  chmodSync(partial, 0o755);
  // Node's own symbols are a tenth of the file and nothing needs them.
  if (spawnSync('strip', ['--version'], { stdio: 'ignore' }).status === 0) run('strip', [partial]);
  run(process.execPath, [
    fromModules('postject', 'dist', 'cli.js'),
    partial,
    'NODE_SEA_BLOB',
    blob,
    '--sentinel-fuse',
    'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
  ]);
  renameSync(partial, output);
} finally {
  if (!process.env.COVE_PACKAGE_KEEP) rmSync(work, { recursive: true, force: true });
}

const size = statSync(output).size;
console.log(`${output}: ${(size / 1e6).toFixed(1)} MB (${size} bytes), built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (process.env.COVE_PACKAGE_OUTPUT === undefined) writeChecksums(dirname(output));

/**
 * Replaces how each native package finds its `.node` file with a call to the single executable's
 * loader; a `.node` file the executable does not carry (ssh2's sshcrypto.node) throws when
 * required, which is the signal those packages take to use their JavaScript code instead.
 */
function nativeAddonsPlugin() {
  const loader = JSON.stringify(join(root, 'src', 'lib', 'native-addons.ts'));
  const load = (name) => `require(${loader}).loadNativeAddon(${JSON.stringify(name)})`;
  return {
    name: 'cove-native-addons',
    setup(builder) {
      // ssh2 works without it; its own optional native part is skipped the same way.
      builder.onResolve({ filter: /^cpu-features$/ }, () => ({ path: 'cpu-features', namespace: 'cove-absent' }));
      builder.onLoad({ filter: /.*/, namespace: 'cove-absent' }, () => ({
        contents: 'throw new Error("not part of the single executable")',
        loader: 'js',
      }));
      builder.onLoad({ filter: /\.node$/ }, (args) => ({ contents: `module.exports = ${load(basename(args.path))};`, loader: 'js' }));
      builder.onLoad({ filter: /[\\/]node_modules[\\/]bindings[\\/]bindings\.js$/ }, () => ({
        contents: `module.exports = (name) => require(${loader}).loadNativeAddon(typeof name === "string" ? name : name.bindings);`,
        loader: 'js',
      }));
      builder.onLoad({ filter: /[\\/]node_modules[\\/]node-pty[\\/]lib[\\/]utils\.js$/ }, async (args) => ({
        contents: `${readFileSync(args.path, 'utf8')}\nexports.loadNativeModule = (name) => ({ dir: ".", module: ${load('pty.node')} });\n`,
        loader: 'js',
      }));
      builder.onLoad({ filter: /[\\/]node_modules[\\/]bufferutil[\\/]index\.js$/ }, () => ({
        contents: `try { module.exports = ${load('bufferutil.node')}; } catch { module.exports = require("./fallback"); }`,
        loader: 'js',
      }));
    },
  };
}

/**
 * In the main part, a dynamic import becomes a look-up in the second part, which it loads on first
 * use (src/cli/single-executable-modules.ts); `targets` collects what the second part must hold.
 */
function lazyImportsPlugin(targets) {
  return {
    name: 'cove-lazy-imports',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, async (args) => {
        const resolved = await resolvedDynamicImport(builder, args);
        if (resolved === undefined) return undefined;
        const path = relative(root, resolved.path);
        targets.add(path);
        return { path: `${path}${SHIM}`, namespace: 'cove-lazy' };
      });
      builder.onLoad({ filter: /.*/, namespace: 'cove-lazy' }, (args) => ({
        contents: `module.exports = globalThis.__coveModules.lazyModule(${JSON.stringify(args.path.slice(0, -SHIM.length))});`,
        loader: 'js',
      }));
    },
  };
}

/** ink loads React's devtools only when DEV=true; the executable does without them. */
function absentDevtoolsPlugin() {
  return {
    name: 'cove-absent-devtools',
    setup(builder) {
      builder.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'react-devtools-core', namespace: 'cove-no-devtools' }));
      builder.onLoad({ filter: /.*/, namespace: 'cove-no-devtools' }, () => ({
        contents: 'export default { initialize() {}, connectToDevTools() {} };',
        loader: 'js',
      }));
    },
  };
}

/**
 * In the client and last parts, a module an earlier part holds is taken from it, never bundled a
 * second time: `holders` maps its source path to the registry's accessor for that part.
 */
function sharedModulesPlugin(holders) {
  return {
    name: 'cove-shared-modules',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData?.inner) return undefined;
        const resolved = await builder.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { inner: true },
        });
        if (resolved.errors.length > 0 || resolved.namespace !== 'file') return undefined;
        const path = relative(root, resolved.path);
        const accessor = holders.get(path);
        return accessor ? { path: `${path}${SHIM}`, namespace: `cove-${accessor}` } : undefined;
      });
      for (const accessor of new Set(holders.values())) {
        builder.onLoad({ filter: /.*/, namespace: `cove-${accessor}` }, (args) => ({
          contents: `module.exports = globalThis.__coveModules.${accessor}(${JSON.stringify(args.path.slice(0, -SHIM.length))});`,
          loader: 'js',
        }));
      }
    },
  };
}

/**
 * The source of a part's entry: `modules`, each module's exports by its source path, run (with what
 * it imports) only when first asked for, so that loading a part runs only what the command uses.
 */
function lazyModules(paths) {
  const getters = paths.map((path) => `  get ${JSON.stringify(path)}() { return require(${JSON.stringify(`./${path}`)}); },`);
  return `exports.modules = {\n${getters.join('\n')}\n};\n`;
}

/**
 * A part as the executable carries it (src/cli/single-executable-modules.ts): the bundle wrapped as
 * a CommonJS module's function, and V8's code cache for it from this same Node, which the
 * executable is a copy of. Returns the two assets by name.
 */
function partAssets(bundleFile, name) {
  const script = join(dirname(bundleFile), `${name}.cjs`);
  writeFileSync(script, `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundleFile, 'utf8')}\n})`);
  const cache = join(dirname(bundleFile), `${name}.cache`);
  run(process.execPath, [
    '-e',
    'const fs = require("node:fs"); const { constants, Script } = require("node:vm");' +
      'const script = new Script(fs.readFileSync(process.argv[1], "utf8"), { filename: process.argv[3], importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });' +
      'fs.writeFileSync(process.argv[2], script.createCachedData());',
    script,
    cache,
    `cove-${name}.cjs`,
  ]);
  return { [`${name}.cjs`]: script, [`${name}.cache`]: cache };
}

/**
 * Keeps npm packages out of a build, except `names` (as scripts/build.mjs builds bin/cove's code):
 * the split of the parts is computed on that build.
 */
function packagesExternalExcept(names) {
  return {
    name: 'packages-external-except',
    setup(builder) {
      builder.onResolve({ filter: /^[^./]/ }, (args) =>
        names.some((name) => args.path === name || args.path.startsWith(`${name}/`)) ? undefined : { path: args.path, external: true },
      );
    },
  };
}

/** The health command's import of its terminal view becomes a load of the embedded ES module. */
function embeddedHealthViewPlugin() {
  const loader = JSON.stringify(join(root, 'src', 'lib', 'embedded-modules.ts'));
  return {
    name: 'cove-embedded-health-view',
    setup(builder) {
      builder.onResolve({ filter: /[\\/]health-report-view\.js$/ }, () => ({ path: 'health-report-view', namespace: 'cove-embedded' }));
      builder.onLoad({ filter: /.*/, namespace: 'cove-embedded' }, () => ({
        contents:
          `const view = () => require(${loader}).importEmbeddedModule("health-report-view.mjs");\n` +
          'exports.drawHealthReport = async (...args) => (await view()).drawHealthReport(...args);\n',
        loader: 'js',
        resolveDir: root,
      }));
    },
  };
}

/**
 * The web dashboard as `npm run build` left it in dist/web, and the app icons, as assets named as
 * src/api/dashboard/dashboard-files.ts reads them (`web/index.html`, `web/assets/…`, `icons/….svg`).
 * They are read only when the daemon serves them, so start-up does not pay for them.
 */
function webAssets() {
  const assets = {};
  const dashboard = join(root, 'dist', 'web');
  if (statSync(join(dashboard, 'index.html'), { throwIfNoEntry: false })?.isFile()) {
    // Source maps stay out: they would be most of the dashboard's size, and only a debugger asks for them.
    for (const file of listFiles(dashboard).filter((path) => !path.endsWith('.map'))) {
      assets[`web/${relative(dashboard, file).split(sep).join('/')}`] = file;
    }
  } else {
    console.warn(`${dashboard}/index.html is missing: this executable carries no web dashboard (run "npm run build" first)`);
  }
  const icons = join(root, 'src', 'api', 'dashboard', 'icons');
  for (const file of listFiles(icons)) assets[`icons/${basename(file)}`] = file;
  return assets;
}

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

function run(command, args) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
  // postject warns about every ELF note it cannot name; those lines say nothing about the result.
  const stderr = (result.stderr ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.includes("Can't find string offset for section name"))
    .join('\n');
  if (result.status !== 0) {
    console.error(stderr);
    throw new Error(`${basename(command)} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
  }
  if (stderr !== '') console.error(stderr);
}

function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

function writeChecksums(dir) {
  const lines = readdirSync(dir)
    .filter((name) => /^cove-linux-(x64|arm64)$/.test(name))
    .sort()
    .map((name) => `${sha256(readFileSync(join(dir, name)))}  ${name}\n`);
  writeFileSync(join(dir, 'SHA256SUMS'), lines.join(''));
  console.log(`${join(dir, 'SHA256SUMS')}:\n${lines.join('').trimEnd()}`);
}
