// Agent log ingest: 20 agents send batches of 100 and then of 1,000 lines with
// `PATCH /workspaceagents/me/logs` for a few seconds each, and the lines the daemon accepts per
// second are compared with what the same SQLite table takes from a plain batched insert of the
// same rows in the same run (targets: >= 0.25 of it with 100-line batches, >= 0.5 with 1,000).
// The baseline writes into the daemon's own `workspace_agent_logs` (its index and foreign key
// included) for the same agents, so both sides pay for the same table.
//
// The client shares the machine with the daemon, so it is kept cheap: request bodies are made
// before the clock starts (a few distinct ones per agent, sent in turn) and go out over kept-alive
// node:http connections. Each simulated agent holds spare agent tokens and moves to the next when
// the daemon refuses a token's batch for its 1 MiB log limit, so the limit does not end a phase early.
//
//   BENCH_LOG_AGENTS=20 BENCH_LOG_SECONDS=4
import { createHash, randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createBenchOwner, createBenchWorkspace, importEchoVersion, mapLimit, procSample, startBenchDaemon } from './agents.js';
import { recordFigure } from './summary.js';

const TARGETS = { 100: 0.25, 1000: 0.5 } as const;
/** Agent tokens per simulated agent: 1 MiB each holds about 13,000 lines of these. */
const TOKENS_PER_AGENT = { 100: 4, 1000: 8 } as const;
/** Distinct bodies per simulated agent, sent in turn. */
const BODIES_PER_AGENT = 4;

/** Sends one batch and resolves with the answer's status, reading and dropping its body. */
function patchLogs(url: URL, agent: Agent, token: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'PATCH',
        agent,
        headers: { 'Service-Session-Token': token, 'content-type': 'application/json', 'content-length': body.length },
      },
      (answer) => {
        answer.resume();
        answer.once('end', () => resolve(answer.statusCode ?? 0));
      },
    );
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}

/** One log line as agents send them: a timestamp, a level and about 60 bytes of output. */
function logLine(agent: number, n: number): { created_at: string; level: string; output: string } {
  return {
    created_at: new Date().toISOString(),
    level: 'info',
    output: `[agent ${agent}] step ${n}: ${randomBytes(16).toString('hex')} ok`,
  };
}

/** The source the daemon files lines under when a batch names none (src/domain/agent-logs.ts). */
const EXTERNAL_SOURCE_ID = '3b579bf4-1ed8-4b99-87a8-e9a1e3410410';

/** The two plain ways of inserting a batch of rows with one statement that the baseline tries. */
type BaselineStatement = 'values' | 'json';

/**
 * Lines per second a plain batched insert of log rows takes into the daemon's own SQLite file and
 * its own table, `workspace_agent_logs` (same columns, index, foreign key and autoincrement), on a
 * connection set up as the daemon's is: the same rows, for the same agents in turn, one batch per
 * transaction. The rows are deleted again afterwards, outside the clock. Either statement form:
 * a row of parameters per line (`values`), or the lines as one JSON parameter (`json`, which is
 * how the daemon inserts them).
 */
function baselineRowsPerSecond(file: string, tokens: readonly string[], batch: number, seconds: number, form: BaselineStatement): number {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = NORMAL');
    const columns = 'insert into workspace_agent_logs (agent_id, log_source_id, created_at, level, output)';
    const insert =
      form === 'values'
        ? db.prepare(`${columns} values ${Array.from({ length: batch }, () => '(?, ?, ?, ?, ?)').join(', ')}`)
        : db.prepare(`${columns} select ?, ?, value ->> 0, value ->> 1, value ->> 2 from json_each(?) order by rowid`);
    const write = db.transaction((values: unknown[]) => insert.run(...values));
    const agentOf = db.prepare('select id from workspace_agents where auth_token_hash = ?').pluck();
    const agentIds = tokens.map((token) => String(agentOf.get(createHash('sha256').update(token).digest('hex'))));
    // Made before the clock starts, as the agents' bodies are: only the insert is timed. The
    // agents take turns, as their batches reach the daemon.
    const batches = Array.from({ length: BODIES_PER_AGENT }, (_, b) =>
      agentIds.map((agentId, agent) => {
        const lines = Array.from({ length: batch }, (_, i) => logLine(agent, b * batch + i));
        return form === 'values'
          ? lines.flatMap((line) => [agentId, EXTERNAL_SOURCE_ID, line.created_at, line.level, line.output])
          : [agentId, EXTERNAL_SOURCE_ID, JSON.stringify(lines.map((line) => [line.created_at, line.level, line.output]))];
      }),
    ).flat();
    const { last } = db.prepare('select coalesce(max(id), 0) as last from workspace_agent_logs').get() as { last: number };
    let rows = 0;
    const started = performance.now();
    while (performance.now() - started < seconds * 1000) {
      write(batches[(rows / batch) % batches.length] ?? []);
      rows += batch;
    }
    const rate = rows / ((performance.now() - started) / 1000);
    db.prepare('delete from workspace_agent_logs where id > ?').run(last);
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
    const tokens = ([100, 1000] as const).map((size) =>
      Array.from({ length: agents * TOKENS_PER_AGENT[size] }, (_, a) => `bench-logs-${size}-${a}-${randomBytes(8).toString('hex')}`),
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

    const logsUrl = new URL(`${daemon.url}/api/v2/workspaceagents/me/logs`);
    for (const phase of phases) {
      const keepAlive = new Agent({ keepAlive: true, maxSockets: agents });
      const bodies = Array.from({ length: agents }, (_, agent) =>
        Array.from({ length: BODIES_PER_AGENT }, (_, b) =>
          Buffer.from(
            JSON.stringify({
              log_source_id: '',
              logs: Array.from({ length: phase.size }, (_, n) => logLine(agent, b * phase.size + n)),
            }),
          ),
        ),
      );
      const perAgent = TOKENS_PER_AGENT[phase.size];
      let accepted = 0;
      let refused = 0;
      const cpuBefore = procSample(daemon.pid);
      const started = performance.now();
      const until = started + seconds * 1000;
      await mapLimit(bodies, agents, async (own, agent) => {
        const owned = phase.tokens.slice(agent * perAgent, (agent + 1) * perAgent);
        let sent = 0;
        while (performance.now() < until && owned.length > 0) {
          const status = await patchLogs(logsUrl, keepAlive, owned[0] ?? '', own[sent++ % own.length] ?? Buffer.alloc(0));
          if (status === 200) accepted += phase.size;
          else {
            refused++;
            // This token's logs are full: go on with the agent's next one.
            if (status === 413) owned.shift();
          }
        }
      });
      keepAlive.destroy();
      const ours = accepted / ((performance.now() - started) / 1000);
      const cpuAfter = procSample(daemon.pid);
      // The daemon's CPU per line does not depend on what else the machine runs, unlike the rate.
      const cpuPerLine = cpuBefore && cpuAfter ? ((cpuAfter.cpuSeconds - cpuBefore.cpuSeconds) / accepted) * 1e6 : Number.NaN;
      // The baseline is the faster of the two statement forms, measured on the rows of each simulated agent's first token.
      const firstTokens = Array.from({ length: agents }, (_, agent) => phase.tokens[agent * perAgent] ?? '');
      const file = join(daemon.dataDir, 'cove.db');
      const values = baselineRowsPerSecond(file, firstTokens, phase.size, seconds, 'values');
      const json = baselineRowsPerSecond(file, firstTokens, phase.size, seconds, 'json');
      const base = Math.max(values, json);
      const ratio = ours / base;
      const target = TARGETS[phase.size];
      console.log(
        `logs: ${agents} agents, ${phase.size}-line batches: ${ours.toFixed(0)} lines/s accepted (${refused} batches refused, daemon CPU ${cpuPerLine.toFixed(1)} µs/line); plain batched insert ${base.toFixed(0)} rows/s (row of parameters per line ${values.toFixed(0)}, lines as one JSON parameter ${json.toFixed(0)})`,
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
