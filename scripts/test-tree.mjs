// Compiles src/, test/, scripts/ and bench/ to JavaScript once per test run, into a mirror of the
// repository under .test-build/, so that each test file's process loads plain JavaScript instead of
// compiling through a loader: with some 550 test-file processes across CI's two passes, the loader
// cost about 1.3 s of CPU each.
//
// The mirror keeps the repository's shape: those directories hold the compiled .js files beside
// links to their .ts sources and to every other file (icons, fixtures), and every other top-level
// entry (bin, dist, docs, node_modules, package.json, ...) is a link to the real one. So a test that
// finds the repository from its own file (`import.meta.url` and '../..') finds the mirror, and
// through it the same files as before. Each run has its own mirror: two runs in one checkout do not
// overwrite each other's.
import { mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';

/** Where the mirrors are written, at the repository's top. */
export const TEST_TREES = '.test-build';
/** The directories compiled into the mirror; every other entry of the top is linked. */
const COMPILED = ['src', 'test', 'scripts', 'bench'];
/** Top-level entries not linked into the mirror. */
const SKIPPED = new Set([TEST_TREES, '.git', ...COMPILED]);

/** Writes a run's mirror of the working tree at `root`; returns its directory. */
export async function writeTestTree(runId, root = '.') {
  const tree = join(root, TEST_TREES, runId);
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(tree, { recursive: true });
  for (const entry of readdirSync(root)) {
    if (!SKIPPED.has(entry)) linkTo(join(root, entry), join(tree, entry));
  }
  const sources = [];
  for (const dir of COMPILED) {
    for (const file of filesUnder(join(root, dir))) {
      // The source stays readable at its own path (tests read sources: import rules, docs checks).
      linkTo(file, join(tree, relative(root, file)));
      if (/\.tsx?$/.test(file) && !file.endsWith('.d.ts')) sources.push(file);
    }
  }
  await build({
    entryPoints: sources,
    outdir: tree,
    outbase: root,
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    jsx: 'automatic',
    // Stack traces of a failing test name the .ts lines (node runs with --enable-source-maps).
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    // esbuild's table has node 20 without import attributes; this one has them (package.json's version).
    supported: { 'import-attributes': true },
  });
  return tree;
}

/** The path of a test file's compiled form in a mirror. */
export function compiledPath(tree, file) {
  return join(tree, file.replace(/\.tsx?$/, '.js'));
}

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

function linkTo(target, path) {
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(relative(dirname(path), resolve(target)), path);
}
