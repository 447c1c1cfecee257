// An organization's members, paged by the server: adding a user by name, removing one after
// asking, and choosing each member's organization roles among those the caller may assign.
import { Fragment, useState, type FormEvent } from 'react';
import type {
  AssignableRole,
  Organization,
  OrganizationMember,
  OrganizationMemberWithUser,
  PaginatedMembers,
} from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { Pager } from '../components/pager.js';
import { RoleChoice } from '../components/role-choice.js';
import { UserAdminGate } from '../components/user-admin-gate.js';
import { UserIdentity } from '../components/user-identity.js';
import { useSession } from '../session.js';
import { OrganizationHeader } from './organization.js';

/** Members a page of the list shows. */
const MEMBERS_PAGE_SIZE = 25;

export function OrganizationMembersPage({ name }: { name: string }) {
  return (
    <UserAdminGate title="Members">
      <Members name={name} />
    </UserAdminGate>
  );
}

function Members({ name }: { name: string }) {
  const { user: me } = useSession();
  const path = `/organizations/${encodeURIComponent(name)}`;
  const organization = useLoad(() => api<Organization>('GET', path), [path]);
  const [offset, setOffset] = useState(0);
  const { data, error, reload, setData } = useLoad(
    () => api<PaginatedMembers>('GET', `${path}/paginated-members`, { query: { limit: MEMBERS_PAGE_SIZE, offset } }),
    [path, offset],
  );
  const roles = useLoad(() => api<AssignableRole[]>('GET', `${path}/members/roles`), [path]);
  const [open, setOpen] = useState<string>();
  const [username, setUsername] = useState('');
  const [added, add] = useAction(async () => {
    const who = username.trim();
    await api<OrganizationMember>('POST', `${path}/members/${encodeURIComponent(who)}`);
    setUsername('');
    reload();
    return `Added ${who}.`;
  });
  const [removed, remove] = useAction(async (member: OrganizationMemberWithUser) => {
    await api('DELETE', `${path}/members/${member.user_id}`);
    reload();
    return `Removed ${member.username}.`;
  });
  const replaceRoles = (changed: OrganizationMember) =>
    data && setData({ ...data, members: data.members.map((m) => (m.user_id === changed.user_id ? { ...m, roles: changed.roles } : m)) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void add();
  };
  return (
    <section className="page">
      <OrganizationHeader name={name} organization={organization.data} />
      <h1>Members</h1>
      <form className="filter" onSubmit={submit} aria-label="Add member">
        <label className="field field-inline">
          <span className="field-label">Username</span>
          <input name="username" value={username} required autoComplete="off" onChange={(event) => setUsername(event.target.value)} />
        </label>
        <button type="submit" className="button button-primary">
          Add member
        </button>
        <ActionStatus state={added} pending="Adding…" />
      </form>
      <ActionStatus state={removed} pending="Removing…" />
      {error !== undefined || !data ? (
        <Loading error={error} />
      ) : (
        <>
          <div className="table-scroll">
            <table className="table" aria-label="Members">
              <thead>
                <tr>
                  <th>User</th>
                  <th>Email</th>
                  <th>Organization roles</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.members.map((member) => (
                  <Fragment key={member.user_id}>
                    <tr>
                      <td>
                        <UserIdentity user={member} />
                      </td>
                      <td>{member.email}</td>
                      <td>
                        {member.roles.length === 0 ? (
                          <span className="muted">Member</span>
                        ) : (
                          member.roles.map((role) => role.display_name || role.name).join(', ')
                        )}
                      </td>
                      <td>
                        <span className="inline-actions">
                          <button
                            type="button"
                            className="button button-quiet"
                            aria-expanded={open === member.user_id}
                            aria-controls={`roles-${member.user_id}`}
                            onClick={() => setOpen(open === member.user_id ? undefined : member.user_id)}
                          >
                            Edit roles <span className="visually-hidden">of {member.username}</span>
                          </button>
                          {member.user_id !== me.id && (
                            <ConfirmButton
                              label={`Remove ${member.username}`}
                              question={`Remove ${member.username} from this organization?`}
                              confirmLabel="Remove"
                              danger
                              onConfirm={() => void remove(member)}
                            />
                          )}
                        </span>
                      </td>
                    </tr>
                    {open === member.user_id && (
                      <tr id={`roles-${member.user_id}`}>
                        <td colSpan={4}>
                          <MemberRoles path={path} member={member} roles={roles.data ?? []} onSaved={replaceRoles} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            label="Member pages"
            offset={offset}
            limit={MEMBERS_PAGE_SIZE}
            shown={data.members.length}
            count={data.count}
            onOffset={setOffset}
          />
        </>
      )}
    </section>
  );
}

function MemberRoles({
  path,
  member,
  roles,
  onSaved,
}: {
  path: string;
  member: OrganizationMemberWithUser;
  roles: readonly AssignableRole[];
  onSaved: (member: OrganizationMember) => void;
}) {
  const [chosen, setChosen] = useState<ReadonlySet<string>>(() => new Set(member.roles.map((role) => role.name)));
  const [saved, save] = useAction(async () => {
    const names = roles.map((role) => role.name).filter((roleName) => chosen.has(roleName));
    onSaved(await api<OrganizationMember>('PUT', `${path}/members/${member.user_id}/roles`, { body: { roles: names } }));
    return 'Roles saved.';
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save();
  };
  return (
    <form onSubmit={submit} aria-label={`Organization roles of ${member.username}`}>
      <RoleChoice legend="Organization roles" roles={roles} chosen={chosen} onChange={setChosen} disabled={saved.state === 'pending'} />
      <div className="inline-actions">
        <button type="submit" className="button">
          Save roles
        </button>
        <ActionStatus state={saved} pending="Saving…" />
      </div>
    </form>
  );
}
