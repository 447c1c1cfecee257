// The web terminal: xterm.js over the agent's reconnecting pty WebSocket. The session's id stays
// in the page URL (`?reconnect=`), so a reload attaches to the same shell and replays its output;
// a dropped connection attaches again on its own, after a pause that grows with each failure.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'react';
import type { UserAppearanceSettings, Workspace, WorkspaceAgent } from '../../sdk/wire/index.js';
import { api, socketUrl, watchWorkspace } from '../api.js';
import { onRetryConnection, reportConnectionBack, reportConnectionLost } from '../connection-state.js';
import { adoptInlineStyles, withInertStyleElements } from '../adopt-inline-styles.js';
import { Loading } from '../components/feedback.js';
import { StatusBadge } from '../components/status.js';
import { Link } from '../router.js';
import { terminalFontFamily } from '../terminal-font.js';

type Connection = 'connecting' | 'connected' | 'disconnected' | 'exited';

/** The session id from the URL, or a new one written into it (replacing the history entry). */
function reconnectId(): string {
  const url = new URL(location.href);
  const existing = url.searchParams.get('reconnect');
  if (existing && /^[0-9a-f-]{36}$/i.test(existing)) return existing;
  const id = crypto.randomUUID();
  url.searchParams.set('reconnect', id);
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  return id;
}

function pickAgent(workspace: Workspace, name: string | undefined): WorkspaceAgent | undefined {
  const agents = workspace.latest_build.resources.flatMap((resource) => resource.agents);
  return name
    ? agents.find((agent) => agent.name === name)
    : (agents.find((agent) => agent.display_apps.includes('web_terminal')) ?? agents[0]);
}

export function TerminalPage({ owner, name, agent: agentName }: { owner: string; name: string; agent: string | undefined }) {
  const [workspace, setWorkspace] = useState<Workspace>();
  const [error, setError] = useState<unknown>();
  // The user's terminal font, read beside the workspace; without an answer, the default font.
  const [font, setFont] = useState<string>();
  // The terminal's own connection: the badge says it rather than the agent's while it is not open.
  const [connection, setConnection] = useState<Connection>('connecting');
  useEffect(() => {
    let current = true;
    api<UserAppearanceSettings>('GET', '/users/me/appearance').then(
      (settings) => current && setFont(settings.terminal_font),
      () => current && setFont(''),
    );
    return () => {
      current = false;
    };
  }, []);
  useEffect(() => {
    let stop: (() => void) | undefined;
    let current = true;
    api<Workspace>('GET', `/users/${encodeURIComponent(owner)}/workspace/${encodeURIComponent(name)}`).then((found) => {
      if (!current) return;
      setWorkspace(found);
      stop = watchWorkspace(found.id, setWorkspace);
    }, setError);
    return () => {
      current = false;
      stop?.();
    };
  }, [owner, name]);

  if (!workspace || font === undefined) return <Loading error={error} />;
  const agent = pickAgent(workspace, agentName);
  const title = `${workspace.name}${agent ? `.${agent.name}` : ''}`;
  const ready = agent?.status === 'connected';
  return (
    <section className="terminal-page" aria-label={`Terminal of ${title}`}>
      <div className="terminal-bar">
        <Link href={`/@${workspace.owner_name}/${workspace.name}`} className="terminal-back">
          ← {workspace.name}
        </Link>
        <span className="terminal-title">{agent?.name ?? 'no agent'}</span>
        {agent && (ready && connection !== 'connected' ? <TerminalBadge connection={connection} /> : <StatusBadge status={agent.status} />)}
      </div>
      {!agent ? (
        <p className="terminal-message">
          {workspace.latest_build.status === 'running'
            ? `This workspace has no agent${agentName ? ` named "${agentName}"` : ''}.`
            : 'The workspace is not running.'}{' '}
          <Link href={`/@${workspace.owner_name}/${workspace.name}`}>Open the workspace</Link> to start it.
        </p>
      ) : ready ? (
        <TerminalView agentId={agent.id} fontFamily={terminalFontFamily(font)} onConnection={setConnection} />
      ) : (
        <p className="terminal-message" role="status">
          <span className="spinner" aria-hidden="true" /> Waiting for the agent to connect…
        </p>
      )}
    </section>
  );
}

/** The terminal's own connection, as it is now (never marked stale while the server is out of reach). */
function TerminalBadge({ connection }: { connection: Connection }) {
  return (
    <span className="live-state">
      {connection === 'connecting' ? (
        <StatusBadge status="connecting" />
      ) : connection === 'exited' ? (
        <StatusBadge status="shutdown" label="shell exited" />
      ) : (
        <StatusBadge status="disconnected" label="connection closed" />
      )}
    </span>
  );
}

/** The pause before attaching again after `failures` drops in a row. */
function backoff(failures: number): number {
  return Math.min(15_000, 500 * 2 ** failures);
}

const DARK = { background: '#0f1419', foreground: '#e6e1cf', cursor: '#f29718', selectionBackground: '#253340' };

function TerminalView({
  agentId,
  fontFamily,
  onConnection,
}: {
  agentId: string;
  fontFamily: string;
  onConnection: (connection: Connection) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const [connection, setConnection] = useState<Connection>('connecting');
  const failures = useRef(0);
  useEffect(() => onConnection(connection), [connection, onConnection]);
  const [generation, setGeneration] = useState(0);
  const [closeReason, setCloseReason] = useState('');

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const reconnect = reconnectId();
    const unadopt = adoptInlineStyles(element);
    const terminal = new Terminal({
      cursorBlink: true,
      fontFamily,
      fontSize: 14,
      scrollback: 5000,
      theme: DARK,
      screenReaderMode: false,
    });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    withInertStyleElements(() => {
      terminal.open(element);
      fit.fit();
    });
    terminal.focus();

    setConnection('connecting');
    const socket = new WebSocket(socketUrl(`/workspaceagents/${agentId}/pty`, { reconnect, width: terminal.cols, height: terminal.rows }));
    socket.binaryType = 'arraybuffer';
    const send = (message: object) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    };
    socket.onopen = () => {
      failures.current = 0;
      reportConnectionBack();
      setConnection('connected');
      send({ width: terminal.cols, height: terminal.rows });
    };
    socket.onmessage = (event) => {
      if (typeof event.data === 'string') terminal.write(event.data);
      else terminal.write(new Uint8Array(event.data as ArrayBuffer));
    };
    let retry: ReturnType<typeof setTimeout> | undefined;
    socket.onclose = (event) => {
      setConnection(event.code === 4000 ? 'exited' : 'disconnected');
      setCloseReason(event.reason);
      if (event.code === 4000) return;
      // 1006: closed without a word from the server, which is what a lost network looks like.
      if (event.code === 1006) reportConnectionLost();
      failures.current += 1;
      retry = setTimeout(() => setGeneration((n) => n + 1), backoff(failures.current));
    };
    const stopRetrying = onRetryConnection(() => {
      if (socket.readyState !== WebSocket.CLOSED) return;
      clearTimeout(retry);
      setGeneration((n) => n + 1);
    });
    const typed = terminal.onData((data) => send({ data }));
    const resized = terminal.onResize(({ cols, rows }) => send({ width: cols, height: rows }));
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(element);
    return () => {
      clearTimeout(retry);
      stopRetrying();
      observer.disconnect();
      typed.dispose();
      resized.dispose();
      socket.onclose = null;
      socket.close();
      terminal.dispose();
      unadopt();
    };
  }, [agentId, fontFamily, generation]);

  const startOver = (fresh: boolean) => {
    if (fresh) {
      const url = new URL(location.href);
      url.searchParams.delete('reconnect');
      history.replaceState(history.state, '', url.pathname + url.search);
    }
    setGeneration((n) => n + 1);
  };

  return (
    <>
      <div className="terminal-host" ref={host} data-connection={connection} />
      {(connection === 'disconnected' || connection === 'exited') && (
        <div className="terminal-overlay" role="alert">
          <p>
            {connection === 'exited'
              ? 'The shell exited.'
              : `The connection closed${closeReason ? `: ${closeReason.replace(/\.$/, '')}.` : '.'} Reconnecting on its own…`}
          </p>
          <button type="button" className="button button-primary" onClick={() => startOver(connection === 'exited')}>
            {connection === 'exited' ? 'Start a new shell' : 'Reconnect now'}
          </button>
        </div>
      )}
      <span className="visually-hidden" role="status">
        {connection === 'connected' ? 'Terminal connected' : connection === 'connecting' ? 'Connecting…' : ''}
      </span>
    </>
  );
}
