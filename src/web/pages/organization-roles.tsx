// An organization's roles: the built-in ones, and its custom roles with their permissions, which
// those allowed create, edit and delete here.
import { useState, type FormEvent } from 'react';
import type { AssignableRole, Organization, RoleObject } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { ORGANIZATION_RESOURCES, permissionKey, permissionsOf, RolePermissions } from '../components/role-permissions.js';
import { UserAdminGate } from '../components/user-admin-gate.js';
import { OrganizationHeader } from './organization.js';

export function OrganizationRolesPage({ name }: { name: string }) {
  return (
    <UserAdminGate title="Roles">
      <Roles name={name} />
    </UserAdminGate>
  );
}

/** Which role the editor holds: a new one, or the custom role of that name. */
type Editing = { readonly role: AssignableRole | undefined } | undefined;

function Roles({ name }: { name: string }) {
  const path = `/organizations/${encodeURIComponent(name)}`;
  const organization = useLoad(() => api<Organization>('GET', path), [path]);
  const { data, error, reload } = useLoad(() => api<AssignableRole[]>('GET', `${path}/members/roles`), [path]);
  const [editing, setEditing] = useState<Editing>();
  const [deleted, destroy] = useAction(async (role: AssignableRole) => {
    await api('DELETE', `${path}/members/roles/${encodeURIComponent(role.name)}`);
    if (editing?.role?.name === role.name) setEditing(undefined);
    reload();
    return `Deleted ${role.display_name || role.name}.`;
  });
  return (
    <section className="page">
      <OrganizationHeader name={name} organization={organization.data} />
      <div className="page-header">
        <h1>Roles</h1>
        <button type="button" className="button button-primary" onClick={() => setEditing({ role: undefined })}>
          New custom role
        </button>
      </div>
      <ActionStatus state={deleted} pending="Deleting…" />
      {!data ? (
        <Loading error={error} />
      ) : (
        <div className="table-scroll">
          <table className="table" aria-label="Roles">
            <thead>
              <tr>
                <th>Role</th>
                <th>Kind</th>
                <th>Permissions</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.map((role) => (
                <tr key={role.name}>
                  <td>
                    <strong>{role.display_name || role.name}</strong> <code className="muted">{role.name}</code>
                  </td>
                  <td>{role.built_in ? 'Built in' : 'Custom'}</td>
                  <td>{summary(role)}</td>
                  <td>
                    {!role.built_in && (
                      <span className="inline-actions">
                        <button type="button" className="button button-quiet" onClick={() => setEditing({ role })}>
                          Edit <span className="visually-hidden">{role.name}</span>
                        </button>
                        <ConfirmButton
                          label={`Delete ${role.name}`}
                          question={`Delete the role ${role.name}? Members holding it lose its permissions.`}
                          confirmLabel="Delete"
                          danger
                          onConfirm={() => void destroy(role)}
                        />
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && (
        <RoleEditor
          key={editing.role?.name ?? ''}
          path={path}
          role={editing.role}
          onSaved={() => {
            setEditing(undefined);
            reload();
          }}
          onCancel={() => setEditing(undefined)}
        />
      )}
    </section>
  );
}

function summary(role: RoleObject): string {
  const count = role.organization_permissions.length + role.site_permissions.length + role.user_permissions.length;
  return count === 0 ? 'None' : `${count} permission${count === 1 ? '' : 's'}`;
}

function RoleEditor({
  path,
  role,
  onSaved,
  onCancel,
}: {
  path: string;
  role: AssignableRole | undefined;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const shown = new Set(ORGANIZATION_RESOURCES.flatMap(([type, , actions]) => actions.map((action) => permissionKey(type, action))));
  const held = (role?.organization_permissions ?? []).filter((p) => !p.negate).map((p) => permissionKey(p.resource_type, p.action));
  const [roleName, setRoleName] = useState(role?.name ?? '');
  const [displayName, setDisplayName] = useState(role?.display_name ?? '');
  const [granted, setGranted] = useState<ReadonlySet<string>>(() => new Set(held.filter((key) => shown.has(key))));
  // Permissions the grid does not offer stay as they were.
  const kept = held.filter((key) => !shown.has(key));
  const [saved, save] = useAction(async () => {
    const body = {
      name: roleName.trim(),
      display_name: displayName.trim(),
      site_permissions: [],
      organization_permissions: permissionsOf(new Set([...granted, ...kept])),
      user_permissions: [],
    };
    await api<RoleObject>(role ? 'PUT' : 'POST', `${path}/members/roles`, { body });
    onSaved();
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save();
  };
  const title = role ? `Edit ${role.name}` : 'New custom role';
  return (
    <form className="form card admin-card" onSubmit={submit} aria-label={title}>
      <h2>{title}</h2>
      <label className="field">
        <span className="field-label">Name</span>
        <input
          name="name"
          value={roleName}
          required
          autoComplete="off"
          readOnly={role !== undefined}
          onChange={(event) => setRoleName(event.target.value)}
        />
      </label>
      <label className="field">
        <span className="field-label">Display name</span>
        <input name="display_name" value={displayName} autoComplete="off" onChange={(event) => setDisplayName(event.target.value)} />
      </label>
      <RolePermissions granted={granted} onChange={setGranted} disabled={saved.state === 'pending'} />
      {kept.length > 0 && <p className="muted">Also keeps {kept.join(', ')}.</p>}
      <div className="form-actions">
        <button type="submit" className="button button-primary">
          {role ? 'Save role' : 'Create role'}
        </button>
        <button type="button" className="button button-quiet" onClick={onCancel}>
          Cancel
        </button>
        <ActionStatus state={saved} pending="Saving…" />
      </div>
    </form>
  );
}
