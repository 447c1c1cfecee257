import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findImportCycles, formatCycle, readImportGraph } from '../helpers/import-cycles.js';

const repository = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('import cycles', () => {
  it('no file under src/ imports itself through others', () => {
    // Type-only imports and import() calls count too: each ties the files as much as a static import.
    const cycles = findImportCycles(readImportGraph(join(repository, 'src'), repository));
    assert.deepEqual(
      cycles.map(formatCycle),
      [],
      `These files import each other in a circle:\n${cycles.map((cycle) => `  ${formatCycle(cycle)}`).join('\n')}\n` +
        'Break each circle by moving what the files share (a type, a constant, a helper) down into a ' +
        'file of its own that imports none of them, or hand it in as a parameter.',
    );
  });

  it('finds a circle of three files and names each once', () => {
    const graph = new Map([
      ['c.ts', ['a.ts']],
      ['a.ts', ['b.ts', 'd.ts']],
      ['b.ts', ['c.ts']],
      ['d.ts', []],
    ]);
    assert.deepEqual(findImportCycles(graph), [['a.ts', 'b.ts', 'c.ts']]);
    assert.equal(formatCycle(['a.ts', 'b.ts', 'c.ts']), 'a.ts -> b.ts -> c.ts -> a.ts');
  });

  it('finds every circle of a tangle, and a file that imports itself', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['a.ts', 'c.ts']],
      ['c.ts', ['b.ts']],
      ['self.ts', ['self.ts']],
    ]);
    assert.deepEqual(findImportCycles(graph), [['a.ts', 'b.ts'], ['b.ts', 'c.ts'], ['self.ts']]);
  });

  it('finds none in a graph without circles', () => {
    const graph = new Map([
      ['a.ts', ['b.ts', 'c.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', []],
      ['d.ts', ['a.ts', 'c.ts']],
    ]);
    assert.deepEqual(findImportCycles(graph), []);
  });

  it('reads every kind of import from the files and none from their strings', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cove-import-cycles-'));
    try {
      mkdirSync(join(dir, 'src', 'lib'), { recursive: true });
      const write = (path: string, text: string): void => writeFileSync(join(dir, 'src', path), text);
      write('a.ts', "import type { B } from './b.js';\nexport * from './lib';\nexport const a = 1;\n");
      write('b.ts', "import './c.js';\nexport type B = typeof import('./d.js');\n");
      write('c.tsx', "export const load = () => import('./e.js');\n");
      write('d.ts', "export const script = `import { a } from './a.js';\n${'x'}\nimport './b.js';`;\n");
      write('e.ts', "// import './a.js';\nexport const text = \"export * from './a.js'\";\n");
      write('lib/index.ts', "import pkg from '../../package.json';\nimport 'node:fs';\nexport default pkg;\n");
      assert.deepEqual(Object.fromEntries(readImportGraph(join(dir, 'src'), dir)), {
        'src/a.ts': ['src/b.ts', 'src/lib/index.ts'],
        'src/b.ts': ['src/c.tsx', 'src/d.ts'],
        'src/c.tsx': ['src/e.ts'],
        'src/d.ts': [],
        'src/e.ts': [],
        'src/lib/index.ts': [],
      });
      write('e.ts', "export { a } from './a.js';\n");
      assert.deepEqual(findImportCycles(readImportGraph(join(dir, 'src'), dir)).map(formatCycle), [
        'src/a.ts -> src/b.ts -> src/c.tsx -> src/e.ts -> src/a.ts',
      ]);
      write('e.ts', "export { a } from './gone.js';\n");
      assert.throws(() => readImportGraph(join(dir, 'src'), dir), /the import "\.\/gone\.js" names no file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
