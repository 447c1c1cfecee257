// Bundles the CLI into dist/ with code splitting, so each command loads only its own chunk and
// `cove --version` stays close to a bare `node` start. npm packages stay external and load from
// node_modules (native addons cannot be bundled).
import { cpSync, rmSync } from 'node:fs';
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

// The app icons the daemon serves at /icon/ (src/api/dashboard/dashboard-files.ts reads them from
// icons/ beside the bundled code).
cpSync(new URL('../src/api/dashboard/icons', import.meta.url), new URL('../dist/icons', import.meta.url), { recursive: true });
