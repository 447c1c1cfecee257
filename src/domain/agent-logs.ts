import { HttpProblem } from '../lib/errors.js';
import type { AgentLogInput } from '../sdk/wire/index.js';
import type { Clock } from '../lib/clock.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { PubSub } from '../store/pubsub.js';
import type { AgentLogLine, AgentWithOwners } from '../store/rows.js';
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

/** Text that may need sanitizeLogOutput: a NUL byte or any surrogate, lone or not. */
const MAY_NEED_SANITIZING = /[\0\uD800-\uDFFF]/;

/** NUL bytes and lone surrogates (which cannot be UTF-8) become ❌, as the reference stores them. */
export function sanitizeLogOutput(output: string): string {
  // Most output has neither; looking for one character is cheaper than the replacement's pattern.
  if (!MAY_NEED_SANITIZING.test(output)) return output;
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
  const times = new LogTimes();
  let bytes = 0;
  const lines = request.logs.map((log): AgentLogLine => {
    const output = sanitizeLogOutput(log.output);
    bytes += Buffer.byteLength(output, 'utf8');
    return [times.normalize(log.created_at) ?? now, log.level, output];
  });
  const outcome = await agentStore.workspaceAgents.appendLogs(found, {
    sourceId,
    lines,
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

/** A UTC timestamp with a fraction of a second of any length, as agents send them: the second, and the fraction. */
const UTC_TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/;

/**
 * Timestamps of log lines in the form they are stored in (`Date#toISOString`, milliseconds), or
 * undefined for what is no time. Formatting every line's time anew was most of the work of storing
 * a batch; the lines of a batch mostly share their second, so for the usual `…:SSZ` and `…:SS.fffZ`
 * forms the second is checked once and the fraction cut to milliseconds, as `Date.parse` does.
 */
export class LogTimes {
  /** The last second seen and whether it is a real one, written as it is stored. */
  #second: string | undefined;
  #secondValid = false;

  normalize(value: string): string | undefined {
    // Already as stored (`Date#toISOString`) and of the second seen last: nothing to change.
    if (value.length === 24 && this.#secondValid && value.startsWith(this.#second ?? '') && isMillisecondsZ(value)) return value;
    const match = UTC_TIMESTAMP.exec(value);
    if (match) {
      const second = match[1] ?? '';
      if (second !== this.#second) {
        this.#second = second;
        // Date.parse accepts days past the month's end and hour 24 and moves them on: those go the slow way.
        const ms = Date.parse(`${second}Z`);
        this.#secondValid = !Number.isNaN(ms) && new Date(ms).toISOString() === `${second}.000Z`;
      }
      if (this.#secondValid) return `${second}.${(match[2] ?? '').slice(0, 3).padEnd(3, '0')}Z`;
    }
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
  }
}

/** Whether a 24-character time ends as `Date#toISOString` writes it: `.` three digits `Z`. */
function isMillisecondsZ(value: string): boolean {
  return (
    value.charCodeAt(19) === 46 &&
    isDigit(value.charCodeAt(20)) &&
    isDigit(value.charCodeAt(21)) &&
    isDigit(value.charCodeAt(22)) &&
    value.charCodeAt(23) === 90
  );
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
