import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/** Which layers each layer may import, as docs/architecture (the shared design) lays them out. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  cli: ['cli', 'sdk', 'lib'],
  daemon: ['daemon', 'api', 'domain', 'store', 'rbac', 'provisioner', 'lib'],
  api: ['api', 'domain', 'store', 'rbac', 'sdk', 'lib'],
  domain: ['domain', 'store', 'rbac', 'lib'],
  provisioner: ['provisioner', 'sdk', 'lib'],
  agent: ['agent', 'sdk', 'lib'],
  store: ['store', 'rbac', 'lib'],
  rbac: ['rbac', 'lib'],
  sdk: ['sdk', 'lib'],
  lib: ['lib'],
  // The dashboard runs in the browser: it speaks the wire types and shares rules that load nothing.
  web: ['web', 'sdk'],
};

/** Layers the CLI may reach only with a dynamic import() inside the command that needs them. */
const CLI_LAZY = new Set(['daemon', 'agent', 'provisioner']);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

interface ImportSite {
  readonly specifier: string;
  readonly dynamic: boolean;
  readonly typeOnly: boolean;
}

/** The domain may name the wire shapes it works with, but loads nothing of the SDK (docs/decisions.md). */
const TYPE_ONLY: Readonly<Record<string, readonly string[]>> = { domain: ['sdk'], web: ['sdk'] };

/** A shared rule beside the wire types (rich-parameter values) that imports nothing: loading it loads no SDK. */
function importsNothing(target: string): boolean {
  const source = target.replace(/\.js$/, '.ts');
  return existsSync(source) && imports(readFileSync(source, 'utf8')).length === 0;
}

function imports(text: string): ImportSite[] {
  const sites: ImportSite[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s([^'"]*?)from\s+['"]([^'"]+)['"]/g)) {
    sites.push({ specifier: match[2] ?? '', dynamic: false, typeOnly: /^type\s/.test(match[1] ?? '') });
  }
  for (const match of text.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g))
    sites.push({ specifier: match[1] ?? '', dynamic: false, typeOnly: false });
  for (const match of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g))
    sites.push({ specifier: match[1] ?? '', dynamic: true, typeOnly: false });
  return sites;
}

function layerOf(path: string): string | undefined {
  const rel = relative(root, path);
  return rel.startsWith('..') ? 'outside' : rel.split(/[\\/]/)[0];
}

/** Every import that runs against the layering, as `file -> target (why)`. */
export function boundaryViolations(): string[] {
  const violations: string[] = [];
  for (const file of sourceFiles(root)) {
    const from = layerOf(file) ?? '';
    const allowed = ALLOWED[from];
    if (!allowed) {
      violations.push(`${relative(root, file)}: "${from}" is not a known layer`);
      continue;
    }
    for (const site of imports(readFileSync(file, 'utf8'))) {
      if (!site.specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), site.specifier);
      const to = layerOf(target);
      if (to === 'outside' && site.specifier.endsWith('package.json')) continue;
      if (to && allowed.includes(to)) continue;
      if (to && site.typeOnly && TYPE_ONLY[from]?.includes(to)) continue;
      if (to && TYPE_ONLY[from]?.includes(to) && importsNothing(target)) continue;
      if (from === 'cli' && to && CLI_LAZY.has(to) && site.dynamic) continue;
      violations.push(
        `${relative(root, file)} -> ${site.specifier} (${from} may not import ${to}${from === 'cli' && to && CLI_LAZY.has(to) ? ' except with a dynamic import()' : ''})`,
      );
    }
  }
  return violations;
}

describe('import boundaries', () => {
  it('has no import that runs upward or sideways between layers', () => {
    assert.deepEqual(boundaryViolations(), []);
  });

  it('would catch a violation', () => {
    const sites = imports("import { x } from '../api/app.js';\nconst d = await import('../daemon/index.js');");
    assert.deepEqual(
      sites.map((s) => s.dynamic),
      [false, true],
    );
  });
});
