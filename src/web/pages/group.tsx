// One group: its members, adding and removing them, its display name and quota allowance, and
// deleting it. The "Everyone" group's members are its organization's and cannot change here.
import { useState, type FormEvent } from 'react';
import type { Group, User } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { Link, navigate } from '../router.js';
import { useMayManageGroups } from '../group-permissions.js';

export function GroupPage({ organization, name }: { organization: string; name: string }) {
  const path = `/organizations/${encodeURIComponent(organization)}/groups/${encodeURIComponent(name)}`;
  const [version, setVersion] = useState(0);
  const { data: group, error } = useLoad(() => api<Group>('GET', path), [path, version]);
  if (!group) return <Loading error={error} />;
  return <GroupView key={`${group.id}-${version}`} group={group} reload={() => setVersion((v) => v + 1)} />;
}

function GroupView({ group, reload }: { group: Group; reload: () => void }) {
  const mayManage = useMayManageGroups();
  const everyone = group.id === group.organization_id;
  const [displayName, setDisplayName] = useState(group.display_name);
  const [allowance, setAllowance] = useState(String(group.quota_allowance));
  const [username, setUsername] = useState('');
  const patch = (body: unknown) => api<Group>('PATCH', `/groups/${group.id}`, { body });
  const [saved, save] = useAction(async () => {
    await patch({ ...(everyone ? {} : { display_name: displayName }), quota_allowance: Number(allowance) });
    reload();
    return 'Saved.';
  });
  const [added, add] = useAction(async () => {
    const user = await api<User>('GET', `/users/${encodeURIComponent(username.trim())}`);
    await patch({ add_users: [user.id] });
    reload();
    return `Added ${user.username}.`;
  });
  const [removed, remove] = useAction(async (userId: string) => {
    await patch({ remove_users: [userId] });
    reload();
  });
  const [deleted, destroy] = useAction(async () => {
    await api('DELETE', `/groups/${group.id}`);
    navigate('/groups');
  });
  const submit = (action: () => Promise<void>) => (event: FormEvent) => {
    event.preventDefault();
    void action();
  };
  return (
    <section className="page">
      <p className="breadcrumb">
        <Link href="/groups">Groups</Link> / {group.organization_display_name || group.organization_name}
      </p>
      <div className="page-header">
        <h1>{group.display_name || group.name}</h1>
        {mayManage && !everyone && (
          <ConfirmButton
            label="Delete group"
            question={`Delete group ${group.name}?`}
            confirmLabel="Delete"
            danger
            onConfirm={() => void destroy()}
          />
        )}
      </div>
      <ActionStatus state={deleted} pending="Deleting…" />
      <p className="muted">
        {group.total_member_count} member{group.total_member_count === 1 ? '' : 's'} · quota allowance {group.quota_allowance} · source{' '}
        {group.source}
        {everyone && ' · every member of the organization belongs to this group'}
      </p>
      <section className="card" aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        {group.members.length === 0 ? (
          <p className="muted">No members you can see.</p>
        ) : (
          <div className="table-scroll">
            <table className="table" aria-label="Members">
              <thead>
                <tr>
                  <th>Username</th>
                  <th>Email</th>
                  <th>Status</th>
                  {mayManage && !everyone && <th aria-label="Actions" />}
                </tr>
              </thead>
              <tbody>
                {group.members.map((member) => (
                  <tr key={member.id}>
                    <td>{member.username}</td>
                    <td>{member.email}</td>
                    <td>{member.status}</td>
                    {mayManage && !everyone && (
                      <td>
                        <button type="button" className="button" onClick={() => void remove(member.id)}>
                          Remove {member.username}
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <ActionStatus state={removed} pending="Removing…" />
        {mayManage && !everyone && (
          <form className="form" onSubmit={submit(add)} aria-label="Add member">
            <label className="field">
              <span className="field-label">Username</span>
              <input name="username" value={username} required autoComplete="off" onChange={(event) => setUsername(event.target.value)} />
            </label>
            <div className="form-actions">
              <button type="submit" className="button">
                Add member
              </button>
              <ActionStatus state={added} pending="Adding…" />
            </div>
          </form>
        )}
      </section>
      {mayManage && (
        <form className="form card" onSubmit={submit(save)} aria-label="Settings">
          <h2>Settings</h2>
          {!everyone && (
            <label className="field">
              <span className="field-label">Display name</span>
              <input name="display_name" value={displayName} autoComplete="off" onChange={(event) => setDisplayName(event.target.value)} />
            </label>
          )}
          <label className="field">
            <span className="field-label">Quota allowance</span>
            <input name="quota_allowance" type="number" min={0} value={allowance} onChange={(event) => setAllowance(event.target.value)} />
          </label>
          <div className="form-actions">
            <button type="submit" className="button button-primary">
              Save
            </button>
            <ActionStatus state={saved} pending="Saving…" />
          </div>
        </form>
      )}
    </section>
  );
}
