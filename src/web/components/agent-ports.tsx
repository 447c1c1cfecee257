// The workspace's ports: what each running agent listens on (read again every few seconds), and
// which ports are shared, with a link to open each and a way to share or stop sharing it.
import { useEffect, useState } from 'react';
import type { ListeningPort, PortShare, Workspace, WorkspaceAgent } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from './feedback.js';

const REFRESH_MS = 5000;
const SHARE_LEVELS = ['authenticated', 'organization', 'public'] as const;

/** The address a port opens at: its subdomain under the app host; none without an app host. */
export function portHref(workspace: Workspace, agentName: string, port: number, protocol: string, appsHost: string): string | undefined {
  if (!appsHost) return undefined;
  const label = `${port}${protocol === 'https' ? 's' : ''}--${agentName}--${workspace.name}--${workspace.owner_name}`;
  return `${location.protocol}//${appsHost.replace('*', label)}/`;
}

/** What one agent listens on, read while the agent is connected and again every few seconds. */
function useListeningPorts(agent: WorkspaceAgent): { ports: readonly ListeningPort[] | undefined; error: unknown } {
  const [ports, setPorts] = useState<ListeningPort[]>();
  const [error, setError] = useState<unknown>();
  const connected = agent.status === 'connected';
  useEffect(() => {
    if (!connected) return;
    let current = true;
    const read = () =>
      api<{ ports: ListeningPort[] }>('GET', `/workspaceagents/${agent.id}/listening-ports`).then(
        (answer) => {
          if (!current) return;
          setError(undefined);
          setPorts([...answer.ports].sort((a, b) => a.port - b.port));
        },
        (failure: unknown) => current && setError(failure),
      );
    void read();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void read();
    }, REFRESH_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [agent.id, connected]);
  return { ports: connected ? ports : undefined, error };
}

type ShareChange = { agent: string; port: number; level: string | null };

export function AgentPorts({ workspace, appsHost }: { workspace: Workspace; appsHost: string }) {
  const shares = useLoad(() => api<{ shares: PortShare[] }>('GET', `/workspaces/${workspace.id}/port-share`), [workspace.id]);
  const [level, setLevel] = useState<string>('authenticated');
  const [change, startChange] = useAction(async ({ agent, port, level: shareLevel }: ShareChange) => {
    if (shareLevel === null) {
      await api('DELETE', `/workspaces/${workspace.id}/port-share`, { body: { agent_name: agent, port } });
      shares.reload();
      return `Port ${port} is no longer shared.`;
    }
    await api('POST', `/workspaces/${workspace.id}/port-share`, {
      body: { agent_name: agent, port, share_level: shareLevel, protocol: 'http' },
    });
    shares.reload();
    return `Port ${port} shared with ${shareLevel}.`;
  });
  const running = workspace.latest_build.status === 'running';
  const agents = workspace.latest_build.resources.flatMap((resource) => resource.agents);
  const list = shares.data?.shares ?? [];
  return (
    <section className="card" aria-labelledby="ports-title">
      <h2 id="ports-title">Ports</h2>
      {running && agents.length > 0 && (
        <label className="field port-share-level">
          <span className="field-label">Share with</span>
          <select value={level} onChange={(event) => setLevel(event.target.value)}>
            {SHARE_LEVELS.map((choice) => (
              <option key={choice} value={choice}>
                {choice}
              </option>
            ))}
          </select>
        </label>
      )}
      {running &&
        agents.map((agent) => (
          <ListeningPorts
            key={agent.id}
            workspace={workspace}
            agent={agent}
            appsHost={appsHost}
            shared={list.filter((share) => share.agent_name === agent.name)}
            share={(port) => startChange({ agent: agent.name, port, level })}
          />
        ))}
      <h3 className="ports-subtitle">Shared ports</h3>
      {!shares.data ? (
        <Loading error={shares.error} />
      ) : list.length === 0 ? (
        <p className="muted">
          No ports are shared. Share one here or with <code>cove port share {workspace.name} PORT</code>.
        </p>
      ) : (
        <ul className="plain-list" aria-label="Shared ports">
          {list.map((share) => {
            const href = portHref(workspace, share.agent_name, share.port, share.protocol, appsHost);
            return (
              <li key={`${share.agent_name}:${share.port}`} className="port-row" data-shared-port={share.port}>
                {href ? (
                  <a href={href} target="_blank" rel="noreferrer">
                    {share.agent_name}:{share.port}
                  </a>
                ) : (
                  `${share.agent_name}:${share.port}`
                )}{' '}
                <span className="muted">shared with {share.share_level}</span>
                <button
                  type="button"
                  className="button button-small"
                  aria-label={`Unshare port ${share.port}`}
                  onClick={() => void startChange({ agent: share.agent_name, port: share.port, level: null })}
                >
                  Unshare
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <ActionStatus state={change} />
      {!appsHost && (
        <p className="muted app-note" data-note="path-ports">
          Ports open only through subdomain apps, which this deployment does not serve: an operator can turn them on with{' '}
          <code>--wildcard-access-url</code>. Until then, reach a port with <code>cove port-forward</code>.
        </p>
      )}
    </section>
  );
}

function ListeningPorts({
  workspace,
  agent,
  appsHost,
  shared,
  share,
}: {
  workspace: Workspace;
  agent: WorkspaceAgent;
  appsHost: string;
  shared: readonly PortShare[];
  share: (port: number) => Promise<void>;
}) {
  const { ports, error } = useListeningPorts(agent);
  if (agent.status !== 'connected') return <p className="muted">{agent.name}: its ports show once the agent is connected.</p>;
  if (!ports) return <Loading error={error}>Reading the ports {agent.name} listens on…</Loading>;
  return (
    <div className="listening-ports" data-listening-agent={agent.name}>
      <h3 className="ports-subtitle">Listening on {agent.name}</h3>
      {ports.length === 0 ? (
        <p className="muted">No process listens on a TCP port.</p>
      ) : (
        <ul className="plain-list" aria-label={`Ports ${agent.name} listens on`}>
          {ports.map((port) => {
            const href = portHref(workspace, agent.name, port.port, 'http', appsHost);
            const isShared = shared.some((item) => item.port === port.port);
            return (
              <li key={port.port} className="port-row" data-listening-port={port.port}>
                <strong>{port.port}</strong> <span className="muted">{port.process_name || port.network}</span>
                {href && (
                  <a className="button button-small" href={href} target="_blank" rel="noreferrer" aria-label={`Open port ${port.port}`}>
                    Open
                  </a>
                )}
                {!isShared && (
                  <button
                    type="button"
                    className="button button-small"
                    aria-label={`Share port ${port.port}`}
                    onClick={() => void share(port.port)}
                  >
                    Share
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
