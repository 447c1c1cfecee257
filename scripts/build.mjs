// Bundles the CLI into dist/ with code splitting, so each command loads only its own chunk and
// `cove --version` stays close to a bare `node` start. npm packages stay external and load from
// node_modules (native addons cannot be bundled), except commander, which every command loads.
//
// Beside it, the fast part dist/cli-fast.cjs: one CommonJS file with the commands that only talk to
// a deployment (scripts/fast-part.mjs says which), which bin/cove runs with V8's code cache; the
// commands it lacks run from the split build above. Its first line carries the hash of the rest, so
// that a code cache is only ever used for the code it was made from.
//
// Then bundles the web dashboard (src/web) for browsers into dist/web: hashed, long-cacheable
// files under dist/web/assets and an index.html that only references them, since the daemon's
// Content-Security-Policy allows no inline script or style.
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { lazyBuiltins, modulesOutsideFastPart, standInsForFullBuild, warmFastPartCache } from './fast-part.mjs';

/** The most the dashboard's first page may load, in gzip bytes: its entry chunk and static imports. */
const FIRST_PAGE_GZIP_LIMIT = 300 * 1024;

/**
 * Keeps npm packages out of the bundle, except `names`: those are bundled as ESM, so that the
 * start of every command does not pay for loading them as CommonJS from node_modules.
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

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const cli = await build({
  entryPoints: ['src/cli/entry.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [packagesExternalExcept(['commander'])],
  // What a bundled CommonJS package requires of node's own modules goes through a real require.
  banner: {
    js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);",
  },
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});

const outsideFastPart = modulesOutsideFastPart(cli.metafile);
const fast = await build({
  entryPoints: ['src/cli/fast-entry.ts'],
  write: false,
  outfile: 'dist/cli-fast.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  // An import() of a package becomes a require() of it, as scripts/fast-part.mjs checked it can be.
  supported: { 'dynamic-import': false },
  plugins: [lazyBuiltins(), packagesExternalExcept(['commander']), standInsForFullBuild(outsideFastPart, process.cwd())],
  // The fast part is one file in dist/, as the chunks are: what looks for files beside its module finds the same.
  define: { 'import.meta.url': 'COVE_MODULE_URL' },
  banner: { js: 'var COVE_MODULE_URL=require("node:url").pathToFileURL(__filename).href;' },
  metafile: true,
  logLevel: 'warning',
});
const fastCode = fast.outputFiles[0].text;
const fastHash = createHash('sha256').update(fastCode).digest('hex').slice(0, 32);
writeFileSync('dist/cli-fast.cjs', `// cove-fast-part ${fastHash}\n${fastCode}`);
// What it holds, for the test that keeps the daemon out of it.
writeFileSync('dist/cli-fast.inputs.json', `${JSON.stringify(Object.keys(fast.metafile.inputs).sort(), null, 1)}\n`);
// The first runs then find the code cache made, from runs of the plain commands; it is named and
// wrapped as bin/cove names and wraps the part (bin/cove makes one itself only when it finds none).
warmFastPartCache({
  source: `(function (exports, require, module, __filename, __dirname) {${readFileSync('dist/cli-fast.cjs', 'utf8')}\n})`,
  cache: `dist/cli-fast-${fastHash}.cache`,
  filename: resolve('dist/cli-fast.cjs'),
  requireFrom: resolve('dist/cli-fast.cjs'),
});

// The app icons the daemon serves at /icon/ (src/api/dashboard/dashboard-files.ts reads them from
// icons/ beside the bundled code).
cpSync(new URL('../src/api/dashboard/icons', import.meta.url), new URL('../dist/icons', import.meta.url), { recursive: true });

const web = await build({
  entryPoints: ['src/web/main.tsx'],
  outdir: 'dist/web/assets',
  publicPath: '/assets',
  bundle: true,
  splitting: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox115', 'safari16'],
  jsx: 'automatic',
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  assetNames: '[name]-[hash]',
  loader: { '.svg': 'file', '.woff2': 'file' },
  define: { 'process.env.NODE_ENV': '"production"' },
  metafile: true,
  logLevel: 'warning',
});

const outputs = web.metafile.outputs;
const [entryPath, entry] = Object.entries(outputs).find(([, output]) => output.entryPoint === 'src/web/main.tsx') ?? [];
if (!entryPath || !entry) throw new Error('the dashboard build produced no entry chunk');

/** The entry chunk and every chunk it imports statically, transitively: what the first page loads. */
const firstPage = new Set();
const visit = (path) => {
  if (firstPage.has(path)) return;
  firstPage.add(path);
  for (const imported of outputs[path]?.imports ?? []) if (imported.kind === 'import-statement') visit(imported.path);
};
visit(entryPath);
const firstPageGzip = [...firstPage].reduce((sum, path) => sum + gzipSync(readFileSync(path)).length, 0);
if (firstPageGzip > FIRST_PAGE_GZIP_LIMIT) {
  console.error(
    `The dashboard's first page loads ${(firstPageGzip / 1024).toFixed(1)} KB of gzip JavaScript; the limit is ${FIRST_PAGE_GZIP_LIMIT / 1024} KB.`,
  );
  process.exit(1);
}

const assetUrl = (path) => `/assets/${path.slice('dist/web/assets/'.length)}`;
const preloads = [...firstPage]
  .filter((path) => path !== entryPath)
  .map((path) => `    <link rel="modulepreload" href="${assetUrl(path)}">\n`)
  .join('');
const css = entry.cssBundle ? `    <link rel="stylesheet" href="${assetUrl(entry.cssBundle)}">\n` : '';
writeFileSync(
  'dist/web/index.html',
  `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <title>Cove</title>
    <link rel="icon" href="/icon/cove.svg" type="image/svg+xml">
${css}${preloads}    <script type="module" src="${assetUrl(entryPath)}"></script>
  </head>
  <body>
    <div id="root"></div>
  </body>
</html>
`,
);
