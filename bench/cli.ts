// The CLI's start-up: `cove --version` (target <= 1.3 x `node -e 0`) and `cove whoami`, `cove ls`
// and `cove templates list` against a local daemon, as a user runs them after `cove login` (target
// <= 1.5 x), for bin/cove and for the single executable (`npm run package`, built once and cached).
// Each figure is the median of the ratios of pairs of runs, `node -e 0` then the command, back to
// back, so a machine whose speed drifts during the run still compares like with like. The daemon
// answers in milliseconds, so the ratio is what the CLI itself costs: start-up, its config and the
// request.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { singleExecutable } from '../test/helpers/single-executable.js';
import { recordFigure } from './summary.js';

const password = 'Bench-Password-2026!';
const COMMANDS: readonly { readonly args: readonly string[]; readonly target: number }[] = [
  { args: ['--version'], target: 1.3 },
  { args: ['whoami'], target: 1.5 },
  { args: ['ls'], target: 1.5 },
  { args: ['templates', 'list'], target: 1.5 },
];

/** Wall milliseconds of one run of a command that must succeed. */
function runMs(command: string, args: readonly string[], env: NodeJS.ProcessEnv): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}: ${result.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** Pairs of runs, `node -e 0` then the command: the median of their ratios and of each's times. */
function paired(command: string, args: readonly string[], env: NodeJS.ProcessEnv, pairs: number) {
  const ratios: number[] = [];
  const ours: number[] = [];
  const node: number[] = [];
  for (let i = 0; i < pairs; i++) {
    const base = runMs(process.execPath, ['-e', '0'], env);
    const time = runMs(command, args, env);
    node.push(base);
    ours.push(time);
    ratios.push(time / base);
  }
  return { ratio: median(ratios), ours: median(ours), node: median(node) };
}

export async function cliBenchmark(cove: string): Promise<void> {
  const pairs = Math.max(15, Number(process.env['BENCH_RUNS'] ?? 21));
  const dataDir = mkdtempSync(join(tmpdir(), 'cove-bench-cli-'));
  const env = { ...process.env, COVE_CONFIG_DIR: join(dataDir, 'config'), COVE_SECRET_STORE: 'file' };
  const server = spawn(
    cove,
    ['serve', '--http-address', '127.0.0.1:0', '--data-dir', join(dataDir, 'daemon'), '--provisioner-daemons', '0'],
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      server.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString('utf8');
        const match = /cove is listening url=(\S+)/.exec(seen);
        if (match?.[1]) resolve(match[1]);
      });
      server.once('exit', (code) => reject(new Error(`cove serve exited with ${code}: ${seen}`)));
    });
    runMs(
      cove,
      ['login', url, '--first-user-email', 'bench@example.com', '--first-user-username', 'bench', '--first-user-password', password],
      env,
    );
    // Both CLIs read the same saved config and credentials.
    const clis = [
      { name: 'bin/cove', file: cove },
      { name: 'single file', file: await singleExecutable() },
    ];
    for (const cli of clis) {
      // Warm the page cache (and the code caches) for every file involved.
      for (const { args } of COMMANDS) runMs(cli.file, args, env);
      runMs(process.execPath, ['-e', '0'], env);
      for (const { args, target } of COMMANDS) {
        const { ratio, ours, node } = paired(cli.file, args, env, pairs);
        const ok = ratio <= target;
        console.log(
          `cli ratio (${cli.name} ${args.join(' ')} / node -e 0): ${ratio.toFixed(2)}  target <= ${target}  ${ok ? 'ok' : 'ABOVE TARGET'}  (${ours.toFixed(0)} ms against ${node.toFixed(0)} ms, medians of ${pairs} pairs)`,
        );
        recordFigure({ name: `cli: ${cli.name} ${args.join(' ')} / node -e 0`, value: ratio.toFixed(2), target: `<= ${target}`, ok });
      }
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
