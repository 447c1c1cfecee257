// Agent log ingest: 20 agents send batches of 100 and then of 1,000 lines with
// `PATCH /workspaceagents/me/logs` for a few seconds each, and the lines the daemon accepts per
// second are compared with what the same SQLite file takes from a plain batched insert of the
// same rows in the same run (targets: >= 0.25 of it with 100-line batches, >= 0.5 with 1,000).
//
//   BENCH_LOG_AGENTS=20 BENCH_LOG_SECONDS=4
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createBenchOwner, createBenchWorkspace, importEchoVersion, mapLimit, procSample, startBenchDaemon } from './agents.js';
import { recordFigure } from './summary.js';

const TARGETS = { 100: 0.25, 1000: 0.5 } as const;

/** One log line as agents send them: a timestamp, a level and about 60 bytes of output. */
function logLine(agent: number, n: number): { created_at: string; level: string; output: string } {
  return {
    created_at: new Date().toISOString(),
    level: 'info',
    output: `[agent ${agent}] step ${n}: ${randomBytes(16).toString('hex')} ok`,
  };
}

/** Lines per second a plain multi-row insert of log rows takes into the daemon's own SQLite file. */
function baselineRowsPerSecond(file: string, batch: number, seconds: number): number {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(
      'create table bench_log_baseline (id integer primary key autoincrement, agent_id text not null, log_source_id text not null, created_at text not null, level text not null, output text not null)',
    );
    const insert = db.prepare(
      `insert into bench_log_baseline (agent_id, log_source_id, created_at, level, output) values ${Array.from({ length: batch }, () => '(?, ?, ?, ?, ?)').join(', ')}`,
    );
    const write = db.transaction((values: unknown[]) => insert.run(...values));
    let rows = 0;
    const started = performance.now();
    while (performance.now() - started < seconds * 1000) {
      const values: unknown[] = [];
      for (let i = 0; i < batch; i++) {
        const line = logLine(0, rows + i);
        values.push('agent', 'source', line.created_at, line.level, line.output);
      }
      write(values);
      rows += batch;
    }
    const rate = rows / ((performance.now() - started) / 1000);
    db.exec('drop table bench_log_baseline');
    return rate;
  } finally {
    db.close();
  }
}

export async function logsBenchmark(): Promise<void> {
  const agents = Number(process.env['BENCH_LOG_AGENTS'] ?? 20);
  const seconds = Number(process.env['BENCH_LOG_SECONDS'] ?? 4);
  const daemon = await startBenchDaemon(1);
  try {
    const owner = await createBenchOwner(daemon.url);
    // One workspace per batch size: each agent may store 1 MiB of logs, so each phase has fresh ones.
    const tokens = [100, 1000].map((size) =>
      Array.from({ length: agents }, (_, a) => `bench-logs-${size}-${a}-${randomBytes(8).toString('hex')}`),
    );
    const phases: { size: 100 | 1000; tokens: string[] }[] = [
      { size: 100, tokens: tokens[0] ?? [] },
      { size: 1000, tokens: tokens[1] ?? [] },
    ];
    let templateId: string | undefined;
    for (const phase of phases) {
      const echo = {
        apply: {
          resources: [
            {
              name: 'box',
              type: 'echo',
              agents: phase.tokens.map((token, a) => ({ name: `a${a + 1}`, auth_token: token, directory: '' })),
            },
          ],
        },
      };
      const version = await importEchoVersion(owner, echo, templateId);
      templateId ??= (await owner.createTemplate('default', { name: 'logs', template_version_id: version })).id;
      await createBenchWorkspace(owner, `logs-${phase.size}`, { template_version_id: version });
    }

    for (const phase of phases) {
      let accepted = 0;
      let refused = 0;
      const cpuBefore = procSample(daemon.pid);
      const started = performance.now();
      const until = started + seconds * 1000;
      await mapLimit(phase.tokens, phase.tokens.length, async (token, agent) => {
        let n = 0;
        while (performance.now() < until) {
          const logs = Array.from({ length: phase.size }, () => logLine(agent, n++));
          const response = await fetch(`${daemon.url}/api/v2/workspaceagents/me/logs`, {
            method: 'PATCH',
            headers: { 'Service-Session-Token': token, 'content-type': 'application/json' },
            body: JSON.stringify({ log_source_id: '', logs }),
          });
          await response.arrayBuffer();
          if (response.status === 200) accepted += phase.size;
          else {
            refused++;
            if (response.status === 413) return; // this agent's logs are full
          }
        }
      });
      const ours = accepted / ((performance.now() - started) / 1000);
      const cpuAfter = procSample(daemon.pid);
      // The daemon's CPU per line does not depend on what else the machine runs, unlike the rate.
      const cpuPerLine = cpuBefore && cpuAfter ? ((cpuAfter.cpuSeconds - cpuBefore.cpuSeconds) / accepted) * 1e6 : Number.NaN;
      const base = baselineRowsPerSecond(join(daemon.dataDir, 'cove.db'), phase.size, seconds);
      const ratio = ours / base;
      const target = TARGETS[phase.size];
      console.log(
        `logs: ${agents} agents, ${phase.size}-line batches: ${ours.toFixed(0)} lines/s accepted (${refused} batches refused, daemon CPU ${cpuPerLine.toFixed(1)} µs/line); plain batched insert ${base.toFixed(0)} rows/s`,
      );
      console.log(
        `logs ratio (${phase.size}-line batches / plain insert): ${ratio.toFixed(2)}  target >= ${target}  ${ratio >= target ? 'ok' : 'BELOW TARGET'}`,
      );
      recordFigure({
        name: `logs: ${phase.size}-line batches / plain insert`,
        value: ratio.toFixed(2),
        target: `>= ${target}`,
        ok: ratio >= target,
      });
    }
  } finally {
    await daemon.stop();
  }
}
