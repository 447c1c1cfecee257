import { HttpProblem } from '../lib/errors.js';
import type { AgentLogInput } from '../sdk/wire/index.js';
import type { Clock } from '../lib/clock.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { PubSub } from '../store/pubsub.js';
import type { AgentWithOwners } from '../store/rows.js';
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
 * Stores a batch of an agent's logs, all or nothing, through the agent's own store. A batch that
 * would take the agent past its limit stores nothing, marks the agent overflowed and answers 413;
 * so does every later batch.
 */
export async function appendAgentLogs(
  agentStore: AuthorizedStore,
  events: { readonly pubsub: PubSub; readonly clock: Clock },
  found: AgentWithOwners,
  request: { readonly log_source_id: string; readonly logs: readonly AgentLogInput[] },
): Promise<void> {
  if (request.logs.length === 0) throw new HttpProblem(400, 'No logs provided.');
  const now = events.clock.now().toISOString();
  const sourceId = request.log_source_id === '' || request.log_source_id === NIL_UUID ? EXTERNAL_LOG_SOURCE.id : request.log_source_id;
  const rows = request.logs.map((log) => ({
    log_source_id: sourceId,
    created_at: validTime(log.created_at) ?? now,
    level: log.level,
    output: sanitizeLogOutput(log.output),
  }));
  const bytes = rows.reduce((sum, row) => sum + Buffer.byteLength(row.output, 'utf8'), 0);
  const outcome = await agentStore.appendWorkspaceAgentLogs(found, {
    rows,
    bytes,
    maxBytes: MAX_AGENT_LOGS_BYTES,
    source: sourceId === EXTERNAL_LOG_SOURCE.id ? { ...EXTERNAL_LOG_SOURCE, created_at: now } : undefined,
  });
  const workspaceId = found.workspace.id;
  if (!outcome.stored) {
    if (outcome.newlyOverflowed) await events.pubsub.publish(workspaceEventsChannel(workspaceId), 'agent_logs_overflow');
    throw new HttpProblem(413, 'Logs limit exceeded', {
      detail: `An agent may store at most ${MAX_AGENT_LOGS_BYTES} bytes of log output; this agent's logs are full and further logs are refused.`,
    });
  }
  await events.pubsub.publish(agentLogsChannel(found.agent.id), String(outcome.after));
  if (outcome.first) await events.pubsub.publish(workspaceEventsChannel(workspaceId), 'agent_first_logs');
}

function validTime(value: string): string | undefined {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
