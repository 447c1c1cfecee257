// Finds circles of imports between source files: a circle makes load order matter (a module can
// see another's exports before they are set) and ties files that should layer into one lump.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';
import type * as TypeScript from 'typescript';

// Loaded as CommonJS: importing it as an ES module makes node scan its many megabytes for named
// exports first, which takes longer than the whole check.
const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;

/** Each file (by its name) and the files it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/**
 * Every circle of the graph, at least one per strongly connected component (Tarjan's algorithm),
 * more when a component holds several: the shortest circle through each of its files that no
 * circle listed before passes through. Each circle starts at its smallest name and does not repeat
 * it at the end; the list is sorted, so the result does not depend on the order of the map.
 */
export function findImportCycles(graph: ImportGraph): string[][] {
  const cycles: string[][] = [];
  for (const component of stronglyConnectedComponents(graph)) {
    const members = new Set(component);
    const [only] = component;
    if (component.length === 1 && only !== undefined && !(graph.get(only) ?? []).includes(only)) continue;
    const covered = new Set<string>();
    for (const file of [...component].sort()) {
      if (covered.has(file)) continue;
      const cycle = shortestCycleThrough(graph, file, members);
      for (const member of cycle) covered.add(member);
      cycles.push(rotateToSmallest(cycle));
    }
  }
  return cycles.sort((a, b) => a.join('\0').localeCompare(b.join('\0')));
}

/** A circle as one line: `a.ts -> b.ts -> a.ts`. */
export function formatCycle(cycle: readonly string[]): string {
  return [...cycle, cycle[0]].join(' -> ');
}

/**
 * The graph of the `.ts` and `.tsx` files under `root`, named relative to `base` with `/`: every
 * static import, `import type`, `export … from`, side-effect import, `import()` call with a literal
 * name and `import('…')` type whose name is relative. Names that lead outside the files read (a
 * package, a JSON file, a stylesheet) are left out; a relative name of code that resolves to no
 * file throws, so a broken resolver cannot hide circles by seeing no edges.
 */
export function readImportGraph(root: string, base: string): Map<string, string[]> {
  const top = resolve(root);
  const files = sourceFiles(top);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of importSpecifiers(file)) {
      if (!specifier.startsWith('./') && !specifier.startsWith('../')) continue;
      const target = resolveSpecifier(file, specifier, top, known);
      if (target !== undefined) targets.add(nameOf(target, base));
    }
    graph.set(nameOf(file, base), [...targets].sort());
  }
  return graph;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function nameOf(file: string, base: string): string {
  return relative(base, file).split(sep).join('/');
}

/**
 * The module names a file imports. TypeScript's own pre-processor reads them token by token, so a
 * string or template that merely looks like an import (a script the code writes out) is not one,
 * and it is several times faster than a full parse.
 */
function importSpecifiers(file: string): string[] {
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((imported) => imported.fileName);
}

/**
 * The file an ESM name means as TypeScript resolves it: `.js` is its `.ts`/`.tsx`, a directory its
 * `index`. Undefined for a file that is not code (package.json, a stylesheet) or lies outside `root`.
 */
function resolveSpecifier(from: string, specifier: string, root: string, known: ReadonlySet<string>): string | undefined {
  const path = resolve(dirname(from), specifier);
  const stem = path.replace(/\.(js|jsx|ts|tsx)$/, '');
  const candidates = [`${stem}.ts`, `${stem}.tsx`, join(path, 'index.ts'), join(path, 'index.tsx')];
  const found = candidates.find((candidate) => known.has(candidate));
  if (found !== undefined) return found;
  const isCode = /\.(js|jsx|ts|tsx)$/.test(specifier) || !/\.\w+$/.test(specifier);
  if (!isCode || !path.startsWith(root + sep)) return undefined;
  throw new Error(`${from}: the import "${specifier}" names no file`);
}

/** Tarjan's algorithm: the strongly connected components, each a list of files. */
function stronglyConnectedComponents(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    lowLink.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        lowLink.set(node, Math.min(lowLink.get(node) ?? 0, lowLink.get(next) ?? 0));
      } else if (onStack.has(next)) {
        lowLink.set(node, Math.min(lowLink.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (lowLink.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    components.push(component);
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return components;
}

/** The shortest path from `start` back to itself inside one component (breadth first). */
function shortestCycleThrough(graph: ImportGraph, start: string, members: ReadonlySet<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head] as string;
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        for (let step = node; step !== start;) {
          step = previous.get(step) as string;
          path.push(step);
        }
        return path.reverse();
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}

function rotateToSmallest(cycle: readonly string[]): string[] {
  const smallest = [...cycle].sort()[0];
  const at = cycle.indexOf(smallest as string);
  return [...cycle.slice(at), ...cycle.slice(0, at)];
}
