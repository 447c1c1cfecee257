// The workspace's share dialog: who has access and with which role, adding a member of the
// organization or a group, changing a role and taking access away.
import { useRef, useState, type FormEvent } from 'react';
import type { MinimalUser, Workspace, WorkspaceACL, WorkspaceRole } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from './feedback.js';

/** A group the dialog offers: the organization's groups when they can be listed, its Everyone group always. */
interface GroupChoice {
  readonly id: string;
  readonly name: string;
}

const ROLES: readonly { value: Exclude<WorkspaceRole, ''>; label: string }[] = [
  { value: 'use', label: 'Use (connect, start, stop)' },
  { value: 'admin', label: 'Admin (also change and delete)' },
];

/**
 * The Share button of the workspace page and the dialog it opens; shown only to those who may share
 * the workspace (who may change it), as the server would refuse the others (it decides either way).
 */
export function ShareButton({ workspace }: { workspace: Workspace }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const mayShare = useLoad(async () => {
    const checks = { share: { action: 'update', object: { resource_type: 'workspace', resource_id: workspace.id } } };
    return (await api<Record<string, boolean>>('POST', '/authcheck', { body: { checks } }))['share'] === true;
  }, [workspace.id]);
  if (mayShare.data !== true) return null;
  return (
    <>
      <button
        type="button"
        className="button"
        onClick={() => {
          setOpen(true);
          dialog.current?.showModal();
        }}
      >
        Share
      </button>
      <dialog ref={dialog} className="card share-dialog" aria-labelledby="share-title" onClose={() => setOpen(false)}>
        {open && <ShareDialog workspace={workspace} close={() => dialog.current?.close()} />}
      </dialog>
    </>
  );
}

function ShareDialog({ workspace, close }: { workspace: Workspace; close: () => void }) {
  const acl = useLoad(() => api<WorkspaceACL>('GET', `/workspaces/${workspace.id}/acl`), [workspace.id]);
  const [change, startChange] = useAction(async (body: { user_roles?: Record<string, string>; group_roles?: Record<string, string> }) => {
    await api('PATCH', `/workspaces/${workspace.id}/acl`, { body });
    acl.reload();
    return 'Sharing saved.';
  });
  return (
    <div>
      <h2 id="share-title">Share {workspace.name}</h2>
      {acl.data ? <Shares acl={acl.data} change={startChange} /> : <Loading error={acl.error} />}
      <AddUser workspace={workspace} add={(id, role) => startChange({ user_roles: { [id]: role } })} />
      <AddGroup workspace={workspace} add={(id, role) => startChange({ group_roles: { [id]: role } })} />
      <ActionStatus state={change} />
      <p>
        <button type="button" className="button" onClick={close}>
          Close
        </button>
      </p>
    </div>
  );
}

function Shares({
  acl,
  change,
}: {
  acl: WorkspaceACL;
  change: (body: { user_roles?: Record<string, string>; group_roles?: Record<string, string> }) => Promise<void>;
}) {
  const rows = [
    ...acl.users.map((user) => ({ kind: 'user' as const, id: user.id, name: user.username, role: user.role })),
    ...acl.group.map((group) => ({ kind: 'group' as const, id: group.id, name: group.display_name || group.name, role: group.role })),
  ];
  if (rows.length === 0) return <p className="muted">Only you have access to this workspace.</p>;
  const body = (kind: 'user' | 'group', id: string, role: string) =>
    kind === 'user' ? { user_roles: { [id]: role } } : { group_roles: { [id]: role } };
  return (
    <table className="table" aria-label="Who has access">
      <thead>
        <tr>
          <th>Name</th>
          <th>Kind</th>
          <th>Role</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={`${row.kind}:${row.id}`} data-share={row.name}>
            <td>{row.name}</td>
            <td>{row.kind}</td>
            <td>
              <select
                aria-label={`Role of ${row.name}`}
                value={row.role}
                onChange={(event) => void change(body(row.kind, row.id, event.target.value))}
              >
                {ROLES.map((role) => (
                  <option key={role.value} value={role.value}>
                    {role.label}
                  </option>
                ))}
              </select>
            </td>
            <td>
              <button
                type="button"
                className="button"
                aria-label={`Remove ${row.name}`}
                onClick={() => void change(body(row.kind, row.id, ''))}
              >
                Remove
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function AddUser({ workspace, add }: { workspace: Workspace; add: (id: string, role: string) => Promise<void> }) {
  const [search, setSearch] = useState('');
  const [role, setRole] = useState('use');
  const [userId, setUserId] = useState('');
  const offered = useLoad(
    () => api<MinimalUser[]>('GET', `/workspaces/${workspace.id}/available-users`, { query: { q: search, limit: 25 } }),
    [workspace.id, search],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const chosen = userId || offered.data?.[0]?.id;
    if (chosen) void add(chosen, role);
  };
  return (
    <form className="share-add" onSubmit={submit} aria-label="Add a user">
      <h3>Add a user</h3>
      <input
        type="search"
        aria-label="Search users"
        placeholder="Search users"
        value={search}
        onChange={(e) => setSearch(e.target.value)}
      />
      <select aria-label="User" value={userId} onChange={(e) => setUserId(e.target.value)}>
        <option value="">{offered.data?.[0] ? `${offered.data[0].username} (first match)` : 'No match'}</option>
        {(offered.data ?? []).map((user) => (
          <option key={user.id} value={user.id}>
            {user.username}
          </option>
        ))}
      </select>
      <RoleSelect label="Role of the new user" value={role} onChange={setRole} />
      <button type="submit" className="button button-primary">
        Add user
      </button>
    </form>
  );
}

function AddGroup({ workspace, add }: { workspace: Workspace; add: (id: string, role: string) => Promise<void> }) {
  const [role, setRole] = useState('use');
  const [groupId, setGroupId] = useState(workspace.organization_id);
  const { data } = useLoad(async (): Promise<GroupChoice[]> => {
    const everyone = { id: workspace.organization_id, name: 'Everyone' };
    // The organization's groups when the caller may list them; its Everyone group in any case.
    const groups = await api<GroupChoice[]>('GET', `/organizations/${workspace.organization_id}/groups`).catch(() => []);
    return [everyone, ...groups.filter((group) => group.id !== everyone.id)];
  }, [workspace.organization_id]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void add(groupId, role);
  };
  return (
    <form className="share-add" onSubmit={submit} aria-label="Add a group">
      <h3>Add a group</h3>
      <select aria-label="Group" value={groupId} onChange={(e) => setGroupId(e.target.value)}>
        {(data ?? []).map((group) => (
          <option key={group.id} value={group.id}>
            {group.name}
          </option>
        ))}
      </select>
      <RoleSelect label="Role of the new group" value={role} onChange={setRole} />
      <button type="submit" className="button">
        Add group
      </button>
    </form>
  );
}

function RoleSelect({ label, value, onChange }: { label: string; value: string; onChange: (role: string) => void }) {
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
      {ROLES.map((role) => (
        <option key={role.value} value={role.value}>
          {role.label}
        </option>
      ))}
    </select>
  );
}
