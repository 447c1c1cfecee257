// The table of a page of workspaces: a checkbox per row for batch actions, the favorite star,
// name and owner, template, status, when last used and built, and each row's own actions.
import { useEffect, useRef } from 'react';
import type { Workspace } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { Link } from '../router.js';
import { isTransitioning, runWorkspaceAction, type WorkspaceAction } from '../workspace-actions.js';
import { ActionStatus, useAction } from './feedback.js';
import { Icon, StatusBadge, Time } from './status.js';
import { WorkspaceActionButtons } from './workspace-action-buttons.js';

export function WorkspaceTable({
  workspaces,
  selected,
  onSelect,
  onChange,
}: {
  workspaces: readonly Workspace[];
  selected: ReadonlySet<string>;
  /** Sets whether the rows of `ids` are selected. */
  onSelect: (ids: readonly string[], on: boolean) => void;
  /** A row's workspace as it changed here (a favorite toggled). */
  onChange: (workspace: Workspace) => void;
}) {
  const ids = workspaces.map((workspace) => workspace.id);
  const chosen = ids.filter((id) => selected.has(id)).length;
  const all = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (all.current) all.current.indeterminate = chosen > 0 && chosen < ids.length;
  }, [chosen, ids.length]);
  return (
    <div className="table-scroll">
      <table className="table workspace-table" aria-label="Workspaces">
        <thead>
          <tr>
            <th className="workspace-select">
              <input
                ref={all}
                type="checkbox"
                aria-label="Select all workspaces on this page"
                checked={ids.length > 0 && chosen === ids.length}
                onChange={(event) => onSelect(ids, event.target.checked)}
              />
            </th>
            <th>
              <span className="visually-hidden">Favorite</span>
            </th>
            <th scope="col">Name</th>
            <th scope="col">Template</th>
            <th scope="col">Status</th>
            <th scope="col">Last used</th>
            <th scope="col">Last built</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {workspaces.map((workspace) => (
            <WorkspaceTableRow
              key={workspace.id}
              workspace={workspace}
              selected={selected.has(workspace.id)}
              onSelect={(on) => onSelect([workspace.id], on)}
              onChange={onChange}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function WorkspaceTableRow({
  workspace,
  selected,
  onSelect,
  onChange,
}: {
  workspace: Workspace;
  selected: boolean;
  onSelect: (on: boolean) => void;
  onChange: (workspace: Workspace) => void;
}) {
  const [action, run] = useAction((name: WorkspaceAction) => runWorkspaceAction(workspace, name));
  const [favorite, toggleFavorite] = useAction(async () => {
    await api(workspace.favorite ? 'DELETE' : 'PUT', `/workspaces/${workspace.id}/favorite`);
    onChange({ ...workspace, favorite: !workspace.favorite });
    return workspace.favorite ? 'Removed from favorites.' : 'Added to favorites.';
  });
  const busy = action.state === 'pending' || isTransitioning(workspace);
  const href = `/@${workspace.owner_name}/${workspace.name}`;
  return (
    <tr
      className={selected ? 'workspace-row-selected' : undefined}
      data-workspace={workspace.name}
      data-status={workspace.latest_build.status}
    >
      <td className="workspace-select">
        <input
          type="checkbox"
          aria-label={`Select ${workspace.owner_name}/${workspace.name}`}
          checked={selected}
          onChange={(event) => onSelect(event.target.checked)}
        />
      </td>
      <td>
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
      </td>
      <td>
        <div className="workspace-name-cell">
          <OwnerAvatar name={workspace.owner_name} url={workspace.owner_avatar_url} />
          <div>
            <Link href={href} className="workspace-name">
              {workspace.name}
            </Link>
            <div className="muted workspace-owner">{workspace.owner_name}</div>
          </div>
        </div>
      </td>
      <td>
        <span className="workspace-template">
          <Icon src={workspace.template_icon} />
          <span>{workspace.template_display_name || workspace.template_name}</span>
          {workspace.outdated && (
            <span className="badge badge-warn" title="A newer template version is active">
              outdated
            </span>
          )}
        </span>
      </td>
      <td>
        <StatusBadge status={workspace.latest_build.status} />
      </td>
      <td className="muted">
        <Time iso={workspace.last_used_at} />
      </td>
      <td className="muted">
        <Time iso={workspace.latest_build.created_at} />
      </td>
      <td>
        <div className="workspace-actions">
          <WorkspaceActionButtons workspace={workspace} busy={busy} run={run} startClass="button" />
          <ActionStatus state={action} />
          {favorite.state === 'error' && <ActionStatus state={favorite} />}
        </div>
      </td>
    </tr>
  );
}

/** The owner's picture, or their initial when they have none. */
function OwnerAvatar({ name, url }: { name: string; url: string }) {
  if (url) return <img className="avatar" src={url} alt="" width={28} height={28} loading="lazy" />;
  return (
    <span className="avatar avatar-initial" aria-hidden="true">
      {(name || '?').slice(0, 1).toUpperCase()}
    </span>
  );
}
