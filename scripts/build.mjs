// Bundles the CLI into dist/ with code splitting, so each command loads only its own chunk and
// `cove --version` stays close to a bare `node` start. npm packages stay external and load from
// node_modules (native addons cannot be bundled).
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/cli/entry.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
