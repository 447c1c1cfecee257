// CLI commands that talk to a local daemon, as a user runs them after `cove login`: `cove whoami`,
// `cove ls` and `cove templates list`, each timed as a whole process against `node -e 0` in the
// same run (target ratio <= 1.8). The daemon answers in milliseconds, so the ratio is what the
// CLI itself costs: start-up, reading its config and the request.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordFigure } from './summary.js';

const TARGET = 1.8;
const password = 'Bench-Password-2026!';

/** Wall milliseconds of one run of a command that must succeed. */
function runMs(command: string, args: readonly string[], env: NodeJS.ProcessEnv): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}: ${result.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

export async function cliBenchmark(cove: string): Promise<void> {
  const runs = Number(process.env['BENCH_RUNS'] ?? 15);
  const dataDir = mkdtempSync(join(tmpdir(), 'cove-bench-cli-'));
  const env = { ...process.env, COVE_CONFIG_DIR: join(dataDir, 'config'), COVE_SECRET_STORE: 'file' };
  const server = spawn(
    cove,
    ['serve', '--http-address', '127.0.0.1:0', '--data-dir', join(dataDir, 'daemon'), '--provisioner-daemons', '0'],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
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
    const commands = [['whoami'], ['ls'], ['templates', 'list']];
    // Warm the page cache for every file involved, then alternate so all see the same machine state.
    for (const args of commands) runMs(cove, args, env);
    runMs(process.execPath, ['-e', '0'], env);
    const times = commands.map(() => [] as number[]);
    const node: number[] = [];
    for (let i = 0; i < runs; i++) {
      node.push(runMs(process.execPath, ['-e', '0'], env));
      commands.forEach((args, k) => times[k]?.push(runMs(cove, args, env)));
    }
    const base = median(node);
    commands.forEach((args, k) => {
      const ours = median(times[k] ?? []);
      const ratio = ours / base;
      console.log(
        `cli ratio (cove ${args.join(' ')} / node -e 0): ${ratio.toFixed(2)}  target <= ${TARGET}  ${ratio <= TARGET ? 'ok' : 'ABOVE TARGET'}  (${ours.toFixed(0)} ms against ${base.toFixed(0)} ms, median of ${runs})`,
      );
      recordFigure({
        name: `cli: cove ${args.join(' ')} / node -e 0`,
        value: ratio.toFixed(2),
        target: `<= ${TARGET}`,
        ok: ratio <= TARGET,
      });
    });
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
