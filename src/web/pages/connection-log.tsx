// The connection log, for owners and auditors: every session into a workspace (SSH, terminals,
// port forwards, apps) with who opened it, from where, how long it lasted and the bytes each way.
import type { ConnectionLog, ConnectionLogResponse, ConnectionType } from '../../sdk/wire/index.js';
import { Avatar } from '../components/audit-entry.js';
import { Loading } from '../components/feedback.js';
import { Pager } from '../components/pager.js';
import { formatDuration, StatusBadge, Time } from '../components/status.js';
import { Link } from '../router.js';
import { termValue } from '../search-terms.js';
import { LOG_PAGE_SIZE, useSearchedLog } from '../searched-log.js';

const TYPES: readonly [ConnectionType, string][] = [
  ['ssh', 'SSH'],
  ['reconnecting_pty', 'Web terminal'],
  ['port_forwarding', 'Port forward'],
  ['workspace_app', 'App'],
  ['vscode', 'VS Code'],
  ['jetbrains', 'JetBrains'],
];

export function ConnectionLogPage() {
  const { query, offset, draft, setDraft, data, error, setTerm, submit, goToOffset } = useSearchedLog<ConnectionLogResponse>(
    '/connectionlog',
    '/connectionlog',
  );
  return (
    <section className="page">
      <div className="page-header">
        <div>
          <h1>Connection log</h1>
          <p className="muted">
            Every session into a workspace, with who opened it. Changes made through the API are in the <Link href="/audit">audit log</Link>
            .
          </p>
        </div>
      </div>
      <form className="filter" role="search" onSubmit={submit} aria-label="Filter the connection log">
        <label className="field field-inline">
          <span className="visually-hidden">Search the connection log</span>
          <input
            type="search"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            placeholder="type:ssh username:alice status:ongoing"
            aria-describedby="connection-filter-hint"
          />
        </label>
        <button type="submit" className="button">
          Filter
        </button>
        <label className="field filter-menu">
          <span className="field-label">Type</span>
          <select value={termValue(query, 'type')} onChange={(event) => setTerm('type', event.target.value)}>
            <option value="">Any</option>
            {TYPES.map(([type, label]) => (
              <option key={type} value={type}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="field filter-menu">
          <span className="field-label">Status</span>
          <select value={termValue(query, 'status')} onChange={(event) => setTerm('status', event.target.value)}>
            <option value="">Any</option>
            <option value="ongoing">Ongoing</option>
            <option value="completed">Completed</option>
          </select>
        </label>
        <p id="connection-filter-hint" className="field-hint">
          Search terms: <code>type:</code>, <code>status:ongoing</code>, <code>username:</code>, <code>user_email:</code>,{' '}
          <code>workspace_owner:</code>, <code>workspace_id:</code>, <code>connected_after:</code>, <code>connected_before:</code>.
        </p>
      </form>
      {error !== undefined || !data ? (
        <Loading error={error} />
      ) : (
        <>
          {data.connection_logs.length === 0 ? (
            <div className="empty">
              <p>No connections match{query ? ` “${query}”` : ''}.</p>
            </div>
          ) : (
            <div className="table-scroll">
              <table className="table" aria-label="Connection log">
                <thead>
                  <tr>
                    <th>Time</th>
                    <th>User</th>
                    <th>Workspace</th>
                    <th>Agent</th>
                    <th>Type</th>
                    <th>IP</th>
                    <th>Duration</th>
                    <th>Bytes in / out</th>
                    <th>Exit</th>
                  </tr>
                </thead>
                <tbody>
                  {data.connection_logs.map((connection) => (
                    <ConnectionRow key={connection.id} connection={connection} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <Pager
            label="Connection log pages"
            offset={offset}
            limit={LOG_PAGE_SIZE}
            shown={data.connection_logs.length}
            count={data.count}
            onOffset={goToOffset}
          />
        </>
      )}
    </section>
  );
}

function ConnectionRow({ connection }: { connection: ConnectionLog }) {
  const ended = connection.disconnect_time ?? connection.ssh_info?.disconnect_time;
  const session = connection.web_info === undefined;
  const user = connection.user ?? connection.web_info?.user ?? null;
  const typeLabel = TYPES.find(([type]) => type === connection.type)?.[1] ?? connection.type;
  return (
    <tr data-connection={connection.id} data-type={connection.type}>
      <td>
        <Time iso={connection.connect_time} />
      </td>
      <td>
        <span className="resource-head">
          <Avatar user={user} />
          {user?.username ?? 'Unauthenticated'}
        </span>
      </td>
      <td>
        <Link href={`/@${connection.workspace_owner_username}/${connection.workspace_name}`}>
          {connection.workspace_owner_username}/{connection.workspace_name}
        </Link>
      </td>
      <td>{connection.agent_name || '—'}</td>
      <td>
        {typeLabel}
        {connection.web_info?.slug_or_port && <div className="field-hint">{connection.web_info.slug_or_port}</div>}
      </td>
      <td>
        <span className="mono">{connection.ip || '—'}</span>
      </td>
      <td data-cell="duration">
        {ended ? (
          formatDuration(new Date(ended).getTime() - new Date(connection.connect_time).getTime())
        ) : session ? (
          <StatusBadge status="running" label="ongoing" />
        ) : (
          '—'
        )}
        {connection.ssh_info?.disconnect_reason && <div className="field-hint">{connection.ssh_info.disconnect_reason}</div>}
      </td>
      <td data-cell="bytes">
        {formatBytes(connection.bytes_to_workspace)} / {formatBytes(connection.bytes_from_workspace)}
      </td>
      <td data-cell="exit">{connection.web_info ? `HTTP ${connection.web_info.status_code}` : (connection.ssh_info?.exit_code ?? '—')}</td>
    </tr>
  );
}

/** Bytes as "512 B", "3.4 KiB", "12 MiB". */
function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
