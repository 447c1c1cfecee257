import type { PlannedAgent, WorkspaceAgentMetadata } from '../sdk/wire/index.js';
import { AGENT_METADATA_VALUE_LIMIT } from '../lib/agent-metadata-limit.js';

/** What a stored metadata result holds (the row without its agent). */
export interface MetadataResult {
  readonly key: string;
  readonly value: string;
  readonly error: string;
  readonly collected_at: string;
}

/** Pubsub channel of one agent's metadata results. Payload: the keys that changed, comma-separated. */
export function agentMetadataChannel(agentId: string): string {
  return `agent_metadata:${agentId}`;
}

/** When an item has not been collected yet: Go's zero time, as the reference's server shows it. */
export const NEVER_COLLECTED = '0001-01-01T00:00:00Z';
/** The age of an item never collected: Go's `time.Since` of the zero time saturates at this many seconds. */
const NEVER_COLLECTED_AGE = 9_223_372_036;

/** `text` cut to at most `limit` bytes of UTF-8, never in the middle of a character. */
export function truncateUtf8(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  let end = limit;
  // Back up over continuation bytes (their top two bits are 1 and 0) so the cut falls on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * A result as the daemon keeps it: value and error bounded, as the agent already bounds them (an
 * agent that does not is cut here, and told so in the error).
 */
export function boundedResult(result: MetadataResult): MetadataResult {
  const bytes = Buffer.byteLength(result.value, 'utf8');
  if (bytes <= AGENT_METADATA_VALUE_LIMIT) return { ...result, error: truncateUtf8(result.error, AGENT_METADATA_VALUE_LIMIT) };
  const note = `value of ${bytes} bytes exceeded ${AGENT_METADATA_VALUE_LIMIT} bytes`;
  return {
    ...result,
    value: truncateUtf8(result.value, AGENT_METADATA_VALUE_LIMIT),
    error: truncateUtf8(result.error === '' ? note : `${result.error}; ${note}`, AGENT_METADATA_VALUE_LIMIT),
  };
}

/**
 * The watch's answer: every item the agent's definition declares, with its latest result (or the
 * zero result when none came yet), ordered by the template's `order` and then by key so the items
 * keep their places.
 */
export function wireMetadata(definition: PlannedAgent, results: readonly MetadataResult[], now: Date): WorkspaceAgentMetadata[] {
  const byKey = new Map(results.map((result) => [result.key, result]));
  return [...(definition.metadata ?? [])]
    .sort((a, b) => a.order - b.order || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((item) => {
      const result = byKey.get(item.key);
      const collectedAt = result ? Date.parse(result.collected_at) : Number.NaN;
      return {
        result: {
          collected_at: result && !Number.isNaN(collectedAt) ? new Date(collectedAt).toISOString() : NEVER_COLLECTED,
          age: Number.isNaN(collectedAt) ? NEVER_COLLECTED_AGE : Math.max(0, Math.floor((now.getTime() - collectedAt) / 1000)),
          value: result?.value ?? '',
          error: result?.error ?? '',
        },
        description: {
          display_name: item.display_name,
          key: item.key,
          script: item.script,
          interval: item.interval,
          timeout: item.timeout,
        },
      };
    });
}
