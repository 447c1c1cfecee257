/**
 * How an agent's connection status, health and lifecycle timestamps follow from what is stored.
 * Pure: callers pass the time, so the store's clock decides (and tests move it).
 */

/** Seconds without a heartbeat after which a connected agent counts as gone: twice the 15 s ping. */
export const AGENT_INACTIVE_TIMEOUT_SECONDS = 30;

export type AgentStatus = 'connecting' | 'connected' | 'disconnected' | 'timeout';

/** The stored facts status depends on. */
export interface AgentConnection {
  readonly created_at: string;
  readonly first_connected_at: string | null;
  readonly last_connected_at: string | null;
  readonly disconnected_at: string | null;
  readonly connection_timeout_seconds: number;
}

/** The derived status, and when it disconnected as the API reports it. */
export interface DerivedStatus {
  readonly status: AgentStatus;
  readonly disconnectedAt: string | undefined;
}

/** The status rules of the reference (§2.2), in their order. */
export function deriveAgentStatus(agent: AgentConnection, now: Date): DerivedStatus {
  const ms = now.getTime();
  if (!agent.first_connected_at) {
    const timedOut = agent.connection_timeout_seconds > 0 && ms - Date.parse(agent.created_at) > agent.connection_timeout_seconds * 1000;
    return { status: timedOut ? 'timeout' : 'connecting', disconnectedAt: undefined };
  }
  const lastConnected = agent.last_connected_at ?? agent.first_connected_at;
  // Equal times count as gone: connecting and each heartbeat clear `disconnected_at`, so a stored one is newer.
  if (agent.disconnected_at && agent.disconnected_at >= lastConnected) {
    return { status: 'disconnected', disconnectedAt: agent.disconnected_at };
  }
  if (ms - Date.parse(lastConnected) > AGENT_INACTIVE_TIMEOUT_SECONDS * 1000) {
    // The agent vanished without closing: it was last seen at its last heartbeat.
    return { status: 'disconnected', disconnectedAt: lastConnected };
  }
  return { status: 'connected', disconnectedAt: undefined };
}

export interface AgentHealth {
  readonly healthy: boolean;
  readonly reason?: string;
}

const SHUTTING_DOWN = new Set(['shutting_down', 'shutdown_timeout', 'shutdown_error']);

/** The health rules of the reference (§2.3). `start_timeout` is slow, not unhealthy. */
export function deriveAgentHealth(status: AgentStatus, lifecycle: string): AgentHealth {
  if (status !== 'connected' && lifecycle !== 'off') {
    if (status === 'timeout') return { healthy: false, reason: 'agent is taking too long to connect' };
    if (status === 'disconnected') return { healthy: false, reason: 'agent has lost connection' };
    return { healthy: false, reason: 'agent is not running' };
  }
  if (lifecycle === 'start_error') return { healthy: false, reason: 'agent startup script exited with an error' };
  if (SHUTTING_DOWN.has(lifecycle)) return { healthy: false, reason: 'agent is shutting down' };
  return { healthy: true, reason: '' };
}

/** The timestamp columns a lifecycle report changes (reference §2.4); other states change none. */
export function lifecycleTimestamps(
  state: string,
  changedAt: string,
  current: { readonly started_at: string | null },
): { started_at?: string; ready_at?: string | null } {
  if (state === 'starting') return { started_at: changedAt, ready_at: null };
  if (state === 'ready' || state === 'start_timeout' || state === 'start_error') {
    return { ready_at: changedAt, ...(current.started_at ? {} : { started_at: changedAt }) };
  }
  return {};
}

/**
 * Lifecycle states that end the machine: the agent has shut down and reports nothing more. `ready`
 * is not one, since the agent keeps running and may still log (cron scripts, later shutdown).
 */
export function isFinalLifecycle(state: string): boolean {
  return state === 'off' || state === 'shutdown_timeout' || state === 'shutdown_error';
}
