// An agent's startup logs, grouped by the source that wrote them (a script, or lines sent from
// outside), followed live over the logs WebSocket while the page is open.
import { useEffect, useState } from 'react';
import type { WorkspaceAgent, WorkspaceAgentLog, WorkspaceAgentLogSource } from '../../sdk/wire/index.js';
import { socketUrl } from '../api.js';

/** Lifecycle states in which the startup has not finished, or finished badly: the log is what explains them. */
const NEEDS_ATTENTION = new Set(['created', 'starting', 'start_timeout', 'start_error']);

/**
 * Follows an agent's log lines: the stored ones, then each new one. The server sends one entry per
 * frame; a frame holding a batch (as the reference's server sends) is read too.
 */
function useAgentLogs(agentId: string): { logs: WorkspaceAgentLog[]; streamError: string | undefined } {
  const [logs, setLogs] = useState<WorkspaceAgentLog[]>([]);
  const [streamError, setStreamError] = useState<string>();
  useEffect(() => {
    setLogs([]);
    setStreamError(undefined);
    const seen = new Set<number>();
    let stopped = false;
    const socket = new WebSocket(socketUrl(`/workspaceagents/${encodeURIComponent(agentId)}/logs`, { follow: true }));
    socket.onmessage = (event) => {
      const data = JSON.parse(String(event.data)) as WorkspaceAgentLog | WorkspaceAgentLog[];
      const fresh = (Array.isArray(data) ? data : [data]).filter((log) => !seen.has(log.id));
      for (const log of fresh) seen.add(log.id);
      if (fresh.length > 0) setLogs((current) => [...current, ...fresh]);
    };
    socket.onclose = (event) => {
      if (!stopped && event.code !== 1000) setStreamError(event.reason || `The log stream closed (${event.code}).`);
    };
    return () => {
      stopped = true;
      socket.close();
    };
  }, [agentId]);
  return { logs, streamError };
}

/** The agent's log, collapsed once it is ready and open while it starts or when its scripts failed. */
export function AgentLogs({ agent }: { agent: WorkspaceAgent }) {
  const attention = NEEDS_ATTENTION.has(agent.lifecycle_state);
  const [open, setOpen] = useState(attention);
  // Opens by itself when the agent turns to a state that needs explaining; a reader's choice stands otherwise.
  useEffect(() => {
    if (attention) setOpen(true);
  }, [attention]);
  const { logs, streamError } = useAgentLogs(agent.id);
  const sources = new Map((agent.log_sources as WorkspaceAgentLogSource[]).map((source) => [source.id, source]));
  const groups = new Map<string, WorkspaceAgentLog[]>();
  for (const log of logs) {
    const group = groups.get(log.source_id);
    if (group) group.push(log);
    else groups.set(log.source_id, [log]);
  }
  return (
    <details
      className="agent-logs"
      data-agent-logs={agent.name}
      open={open}
      onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>
        <span>Startup logs</span>{' '}
        {agent.lifecycle_state === 'start_error' && <span className="agent-logs-failed">a startup script failed</span>}{' '}
        <span className="muted">
          {logs.length} line{logs.length === 1 ? '' : 's'}
        </span>
      </summary>
      <div className="agent-logs-body" tabIndex={0} aria-label={`Startup logs of ${agent.name}`}>
        {logs.length === 0 && <p className="muted">No log lines yet.</p>}
        {[...groups].map(([sourceId, lines]) => (
          <section key={sourceId} className="agent-log-source" data-log-source={sources.get(sourceId)?.display_name ?? sourceId}>
            <h3>{sources.get(sourceId)?.display_name || 'Output'}</h3>
            <pre>
              {lines.map((log) => (
                <span key={log.id} className={`log-line log-${log.level}`}>
                  {log.output}
                  {'\n'}
                </span>
              ))}
            </pre>
          </section>
        ))}
        {agent.logs_overflowed && <p className="muted">The agent sent more log than is kept; the newest lines are missing.</p>}
        {streamError && <p className="muted">{streamError}</p>}
      </div>
    </details>
  );
}
