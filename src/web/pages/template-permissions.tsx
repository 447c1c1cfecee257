// Who may use and administer one template: the users and groups its permissions name, with their
// roles. Those who may change them (template admins, organization admins, the template's own
// admins) add, change and remove entries here; others see the list.
import { useState, type FormEvent } from 'react';
import type { ACLAvailable, Template, TemplateACL, TemplateRole } from '../../sdk/wire/index.js';
import { api, ApiError } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { Link } from '../router.js';
import { useSession } from '../session.js';

/** One entry of the list: a user or a group with its role. */
interface Entry {
  readonly kind: 'user' | 'group';
  readonly id: string;
  readonly name: string;
  readonly detail: string;
  readonly role: TemplateRole;
}

const ROLE_LABELS: Readonly<Record<'use' | 'admin', string>> = { use: 'Use', admin: 'Admin' };

function entriesOf(acl: TemplateACL): Entry[] {
  return [
    ...acl.group.map((group) => ({
      kind: 'group' as const,
      id: group.id,
      name: group.name,
      detail: `${group.total_member_count} member${group.total_member_count === 1 ? '' : 's'}`,
      role: group.role,
    })),
    ...acl.users.map((user) => ({ kind: 'user' as const, id: user.id, name: user.username, detail: user.email, role: user.role })),
  ];
}

export function TemplatePermissionsPage({ name }: { name: string }) {
  const { user } = useSession();
  const organization = user.organization_ids[0] ?? 'default';
  const { data, error } = useLoad(
    () => api<Template>('GET', `/organizations/${organization}/templates/${encodeURIComponent(name)}`),
    [organization, name],
  );
  return (
    <section className="page">
      <p className="breadcrumb">
        <Link href="/templates">Templates</Link> / <Link href={`/templates/${encodeURIComponent(name)}`}>{name}</Link> / Permissions
      </p>
      <h1>Permissions</h1>
      <p className="muted">
        <strong>Use</strong> lets people see the template and create workspaces from it; <strong>Admin</strong> also lets them edit it and
        these permissions. The Everyone group stands for every member of the organization.
      </p>
      {data ? <PermissionsEditor template={data} /> : <Loading error={error} />}
    </section>
  );
}

function PermissionsEditor({ template }: { template: Template }) {
  // Only those who may change the permissions may read them or list whom to add; others get a 404.
  const acl = useLoad(
    () =>
      api<TemplateACL>('GET', `/templates/${template.id}/acl`).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }),
    [template.id],
  );
  const available = useLoad(
    () =>
      api<ACLAvailable>('GET', `/templates/${template.id}/acl/available`).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      }),
    [template.id],
  );
  const [state, change] = useAction(async (kind: 'user' | 'group', id: string, role: TemplateRole, what: string) => {
    await api('PATCH', `/templates/${template.id}/acl`, {
      body: kind === 'user' ? { user_perms: { [id]: role } } : { group_perms: { [id]: role } },
    });
    acl.reload();
    return what;
  });
  if (acl.data === null) return <p className="card muted">Only the template&rsquo;s admins see and change its permissions.</p>;
  if (!acl.data) return <Loading error={acl.error} />;
  const editable = available.data !== undefined;
  const entries = entriesOf(acl.data);
  return (
    <>
      <section className="card" aria-labelledby="permissions-title">
        <h2 id="permissions-title">Users and groups</h2>
        {entries.length === 0 ? (
          <p className="muted">Nobody is named: only template and organization admins can see this template.</p>
        ) : (
          <div className="table-scroll">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Role</th>
                  {editable && (
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {entries.map((entry) => (
                  <tr key={`${entry.kind}:${entry.id}`}>
                    <td>
                      <strong>{entry.name}</strong> <span className="muted">{entry.detail}</span>
                    </td>
                    <td>{entry.kind}</td>
                    <td>
                      {editable ? (
                        <select
                          aria-label={`Role of ${entry.name}`}
                          value={entry.role}
                          onChange={(event) =>
                            void change(
                              entry.kind,
                              entry.id,
                              event.target.value as TemplateRole,
                              `${entry.name} now has the role ${event.target.value}.`,
                            )
                          }
                        >
                          <option value="use">{ROLE_LABELS.use}</option>
                          <option value="admin">{ROLE_LABELS.admin}</option>
                        </select>
                      ) : entry.role === '' ? (
                        ''
                      ) : (
                        ROLE_LABELS[entry.role]
                      )}
                    </td>
                    {editable && (
                      <td>
                        <button
                          type="button"
                          className="button"
                          onClick={() => void change(entry.kind, entry.id, '', `Removed ${entry.name}.`)}
                        >
                          Remove {entry.name}
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <ActionStatus state={state} pending="Saving…" />
      </section>
      {available.data && (
        <AddEntry
          available={available.data}
          named={new Set(entries.map((entry) => entry.id))}
          onAdd={(kind, id, role, what) => change(kind, id, role, what)}
        />
      )}
    </>
  );
}

function AddEntry({
  available,
  named,
  onAdd,
}: {
  available: ACLAvailable;
  named: ReadonlySet<string>;
  onAdd: (kind: 'user' | 'group', id: string, role: TemplateRole, what: string) => Promise<void>;
}) {
  const [choice, setChoice] = useState('');
  const [role, setRole] = useState<TemplateRole>('use');
  const groups = available.groups.filter((group) => !named.has(group.id));
  const users = available.users.filter((user) => !named.has(user.id));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const [kind, id] = choice.split(':') as ['user' | 'group', string];
    if (!id) return;
    const label = kind === 'group' ? groups.find((group) => group.id === id)?.name : users.find((user) => user.id === id)?.username;
    setChoice('');
    void onAdd(kind, id, role, `Added ${label ?? id} as ${role}.`);
  };
  return (
    <section className="card" aria-labelledby="add-permission-title">
      <h2 id="add-permission-title">Add a user or group</h2>
      <form className="filter" onSubmit={submit}>
        <label className="field field-inline">
          <span className="field-label">User or group</span>
          <select aria-label="User or group" value={choice} onChange={(event) => setChoice(event.target.value)} required>
            <option value="">Choose…</option>
            {groups.length > 0 && (
              <optgroup label="Groups">
                {groups.map((group) => (
                  <option key={group.id} value={`group:${group.id}`}>
                    {group.name}
                  </option>
                ))}
              </optgroup>
            )}
            {users.length > 0 && (
              <optgroup label="Users">
                {users.map((user) => (
                  <option key={user.id} value={`user:${user.id}`}>
                    {user.username}
                  </option>
                ))}
              </optgroup>
            )}
          </select>
        </label>
        <label className="field">
          <span className="field-label">Role</span>
          <select aria-label="Role" value={role} onChange={(event) => setRole(event.target.value as TemplateRole)}>
            <option value="use">{ROLE_LABELS.use}</option>
            <option value="admin">{ROLE_LABELS.admin}</option>
          </select>
        </label>
        <button type="submit" className="button button-primary" disabled={choice === ''}>
          Add
        </button>
      </form>
    </section>
  );
}
