// The groups of the organizations a user can see, and a form to make one for those who may.
import { useState, type FormEvent } from 'react';
import type { Group, Organization } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { useMayManageGroups } from '../group-permissions.js';
import { Link, navigate } from '../router.js';

/** The dashboard address of a group's page. */
export function groupPath(group: Pick<Group, 'organization_name' | 'name'>): string {
  return `/groups/${encodeURIComponent(group.organization_name)}/${encodeURIComponent(group.name)}`;
}

export function GroupsPage() {
  const groups = useLoad(() => api<Group[]>('GET', '/groups'), []);
  const organizations = useLoad(() => api<Organization[]>('GET', '/organizations'), []);
  const mayManage = useMayManageGroups();
  const [name, setName] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [allowance, setAllowance] = useState('0');
  const [organization, setOrganization] = useState('');
  const [created, create] = useAction(async () => {
    const org = organization || organizations.data?.find((o) => o.is_default)?.id || '';
    const group = await api<Group>('POST', `/organizations/${encodeURIComponent(org)}/groups`, {
      body: { name, display_name: displayName, quota_allowance: Number(allowance) },
    });
    navigate(groupPath(group));
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void create();
  };
  return (
    <section className="page">
      <div className="page-header">
        <h1>Groups</h1>
      </div>
      {!groups.data ? (
        <Loading error={groups.error} />
      ) : (
        <div className="table-scroll">
          <table className="table" aria-label="Groups">
            <thead>
              <tr>
                <th>Name</th>
                <th>Organization</th>
                <th>Members</th>
                <th>Quota allowance</th>
                <th>Source</th>
              </tr>
            </thead>
            <tbody>
              {groups.data.map((group) => (
                <tr key={group.id}>
                  <td>
                    <Link href={groupPath(group)}>{group.display_name || group.name}</Link>
                  </td>
                  <td>{group.organization_display_name || group.organization_name}</td>
                  <td>{group.total_member_count}</td>
                  <td>{group.quota_allowance}</td>
                  <td>{group.source}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {mayManage && (
        <form className="form card" onSubmit={submit} aria-label="New group">
          <h2>New group</h2>
          {(organizations.data?.length ?? 0) > 1 && (
            <label className="field">
              <span className="field-label">Organization</span>
              <select value={organization} onChange={(event) => setOrganization(event.target.value)}>
                <option value="">Default organization</option>
                {(organizations.data ?? []).map((o) => (
                  <option key={o.id} value={o.id}>
                    {o.display_name || o.name}
                  </option>
                ))}
              </select>
            </label>
          )}
          <label className="field">
            <span className="field-label">Name</span>
            <input name="name" value={name} required autoComplete="off" onChange={(event) => setName(event.target.value)} />
          </label>
          <label className="field">
            <span className="field-label">Display name</span>
            <input name="display_name" value={displayName} autoComplete="off" onChange={(event) => setDisplayName(event.target.value)} />
          </label>
          <label className="field">
            <span className="field-label">Quota allowance</span>
            <input name="quota_allowance" type="number" min={0} value={allowance} onChange={(event) => setAllowance(event.target.value)} />
          </label>
          <div className="form-actions">
            <button type="submit" className="button button-primary">
              Create group
            </button>
            <ActionStatus state={created} pending="Creating…" />
          </div>
        </form>
      )}
    </section>
  );
}
