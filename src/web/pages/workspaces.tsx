// The user's workspaces, each followed live; filtered with the API's search syntax.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { Workspace, WorkspacesResponse } from '../../sdk/wire/index.js';
import { api, watchWorkspace } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { WorkspaceActionButtons } from '../components/workspace-action-buttons.js';
import { QuotaSummary } from '../components/quota.js';
import { Icon, StatusBadge, Time } from '../components/status.js';
import { Link, navigate, useLocation } from '../router.js';
import { isTransitioning, runWorkspaceAction, type WorkspaceAction } from '../workspace-actions.js';

const DEFAULT_FILTER = 'owner:me';

export function WorkspacesPage() {
  const { search } = useLocation();
  const query = search.get('q') ?? DEFAULT_FILTER;
  const [draft, setDraft] = useState(query);
  useEffect(() => setDraft(query), [query]);
  const { data, error, reload } = useLoad(() => api<WorkspacesResponse>('GET', '/workspaces', { query: { q: query } }), [query]);

  const applyFilter = (event: FormEvent) => {
    event.preventDefault();
    navigate(`/workspaces?q=${encodeURIComponent(draft.trim())}`);
  };

  return (
    <section className="page">
      <div className="page-header">
        <h1>Workspaces</h1>
        <QuotaSummary refresh={data} />
        <Link href="/workspaces/new" className="button button-primary">
          New workspace
        </Link>
      </div>
      <form className="filter" role="search" onSubmit={applyFilter}>
        <label className="field field-inline">
          <span className="visually-hidden">Filter workspaces</span>
          <input
            type="search"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            placeholder="owner:me status:running template:name"
            aria-describedby="filter-hint"
          />
        </label>
        <button type="submit" className="button">
          Filter
        </button>
        <p id="filter-hint" className="field-hint">
          Search terms: <code>owner:</code>, <code>name:</code>, <code>status:</code>, <code>template:</code>, <code>outdated:true</code>,{' '}
          <code>favorite:true</code>, or a bare word for the name.
        </p>
      </form>
      {!data ? (
        <Loading error={error} />
      ) : data.workspaces.length === 0 ? (
        <div className="empty">
          <p>No workspaces match “{query}”.</p>
          <Link href="/workspaces/new" className="button button-primary">
            Create a workspace
          </Link>
        </div>
      ) : (
        <ul className="workspace-list" aria-label="Workspaces">
          {data.workspaces.map((workspace) => (
            <WorkspaceRow key={workspace.id} initial={workspace} onGone={reload} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** One workspace, kept current by its watch stream. */
function WorkspaceRow({ initial, onGone }: { initial: Workspace; onGone: () => void }) {
  const [workspace, setWorkspace] = useState(initial);
  useEffect(() => watchWorkspace(initial.id, setWorkspace), [initial.id]);
  const gone = useRef(false);
  useEffect(() => {
    if (workspace.latest_build.status !== 'deleted' || gone.current) return;
    gone.current = true;
    onGone();
  }, [workspace.latest_build.status, onGone]);

  const [action, run] = useAction((name: WorkspaceAction) => runWorkspaceAction(workspace, name));
  const [favorite, toggleFavorite] = useAction(async () => {
    await api(workspace.favorite ? 'DELETE' : 'PUT', `/workspaces/${workspace.id}/favorite`);
    setWorkspace({ ...workspace, favorite: !workspace.favorite });
    return workspace.favorite ? 'Removed from favorites.' : 'Added to favorites.';
  });
  const status = workspace.latest_build.status;
  const busy = action.state === 'pending' || isTransitioning(workspace);
  const href = `/@${workspace.owner_name}/${workspace.name}`;

  return (
    <li className="workspace-row" data-workspace={workspace.name}>
      <button
        type="button"
        className={workspace.favorite ? 'favorite favorite-on' : 'favorite'}
        aria-pressed={workspace.favorite}
        aria-label={workspace.favorite ? `Unfavorite ${workspace.name}` : `Favorite ${workspace.name}`}
        title={workspace.favorite ? 'Favorite' : 'Mark as favorite'}
        onClick={() => void toggleFavorite()}
        disabled={favorite.state === 'pending'}
      >
        {workspace.favorite ? '★' : '☆'}
      </button>
      <div className="workspace-main">
        <Link href={href} className="workspace-name">
          {workspace.name}
        </Link>
        <span className="muted workspace-owner">{workspace.owner_name}</span>
      </div>
      <div className="workspace-template">
        <Icon src={workspace.template_icon} />
        <span>{workspace.template_display_name || workspace.template_name}</span>
        {workspace.outdated && (
          <span className="badge badge-warn" title="A newer template version is active">
            outdated
          </span>
        )}
      </div>
      <div className="workspace-status">
        <StatusBadge status={status} />
      </div>
      <div className="workspace-used muted">
        Used <Time iso={workspace.last_used_at} />
      </div>
      <div className="workspace-actions">
        <WorkspaceActionButtons workspace={workspace} busy={busy} run={run} startClass="button" />
        <ActionStatus state={action} />
        {favorite.state === 'error' && <ActionStatus state={favorite} />}
      </div>
    </li>
  );
}
