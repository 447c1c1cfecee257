import { HttpProblem } from '../lib/errors.js';
import type { AgentLogInput } from '../sdk/wire/index.js';
import { getAgentRow, upsertLogSource, type AgentRow } from '../store/queries/workspace-agents.js';
import type { Store } from '../store/store.js';
import { workspaceEventsChannel } from './workspace-events.js';

/** Bytes of log output one agent may store, over all its logs (reference §3.1). */
export const MAX_AGENT_LOGS_BYTES = 1024 * 1024;

/** The well-known source of logs that name none (reference §3.3). */
export const EXTERNAL_LOG_SOURCE = {
  id: '3b579bf4-1ed8-4b99-87a8-e9a1e3410410',
  display_name: 'External',
  icon: '/emojis/1f310.png',
} as const;

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** Pubsub channel of one agent's new logs. Payload: the id after which followers should read. */
export function agentLogsChannel(agentId: string): string {
  return `agent_logs:${agentId}`;
}

/** NUL bytes and lone surrogates (which cannot be UTF-8) become ❌, as the reference stores them. */
export function sanitizeLogOutput(output: string): string {
  return output.replace(/\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\u274C');
}

/**
 * Stores a batch of an agent's logs, all or nothing. A batch that would take the agent past its
 * limit stores nothing, marks the agent overflowed and answers 413; so does every later batch.
 */
export async function appendAgentLogs(
  store: Store,
  agent: Pick<AgentRow, 'id'>,
  workspaceId: string,
  request: { readonly log_source_id: string; readonly logs: readonly AgentLogInput[] },
): Promise<void> {
  if (request.logs.length === 0) throw new HttpProblem(400, 'No logs provided.');
  const sourceId = request.log_source_id === '' || request.log_source_id === NIL_UUID ? EXTERNAL_LOG_SOURCE.id : request.log_source_id;
  const rows = request.logs.map((log) => ({
    agent_id: agent.id,
    log_source_id: sourceId,
    created_at: validTime(log.created_at) ?? store.nowIso(),
    level: log.level,
    output: sanitizeLogOutput(log.output),
  }));
  const bytes = rows.reduce((sum, row) => sum + Buffer.byteLength(row.output, 'utf8'), 0);
  const outcome = await store.db.transaction().execute(async (trx) => {
    const current = await getAgentRow(trx, agent.id);
    if (!current) throw new HttpProblem(404, 'Workspace agent not found.');
    if (current.logs_overflowed || current.logs_length + bytes > MAX_AGENT_LOGS_BYTES) {
      if (!current.logs_overflowed)
        await trx.updateTable('workspace_agents').set({ logs_overflowed: 1 }).where('id', '=', agent.id).execute();
      return { overflowed: true, newlyOverflowed: !current.logs_overflowed, first: false, after: 0 };
    }
    if (sourceId === EXTERNAL_LOG_SOURCE.id) {
      await upsertLogSource(trx, { agent_id: agent.id, ...EXTERNAL_LOG_SOURCE, created_at: store.nowIso() });
    }
    const inserted = await trx.insertInto('workspace_agent_logs').values(rows).returning('id').execute();
    await trx
      .updateTable('workspace_agents')
      .set({ logs_length: current.logs_length + bytes })
      .where('id', '=', agent.id)
      .execute();
    const firstId = Math.min(...inserted.map((row) => Number(row.id)));
    return { overflowed: false, newlyOverflowed: false, first: current.logs_length === 0, after: firstId - 1 };
  });
  if (outcome.overflowed) {
    if (outcome.newlyOverflowed) await store.pubsub.publish(workspaceEventsChannel(workspaceId), 'agent_logs_overflow');
    throw new HttpProblem(413, 'Logs limit exceeded', {
      detail: `An agent may store at most ${MAX_AGENT_LOGS_BYTES} bytes of log output; this agent's logs are full and further logs are refused.`,
    });
  }
  await store.pubsub.publish(agentLogsChannel(agent.id), String(outcome.after));
  if (outcome.first) await store.pubsub.publish(workspaceEventsChannel(workspaceId), 'agent_first_logs');
}

function validTime(value: string): string | undefined {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
