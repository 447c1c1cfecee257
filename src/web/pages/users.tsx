// The deployment's users for its administrators: searched with the API's syntax and paged by the
// server (the search and page live in the URL), with each user's roles, status, password and
// deletion one "Manage" away.
import { Fragment, useEffect, useState, type FormEvent } from 'react';
import type { AssignableRole, User, UsersResponse } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { Loading, useLoad } from '../components/feedback.js';
import { Pager } from '../components/pager.js';
import { DEPLOYMENT_TABS, SectionTabs } from '../components/section-tabs.js';
import { StatusBadge, Time } from '../components/status.js';
import { UserActions } from '../components/user-actions.js';
import { UserAdminGate } from '../components/user-admin-gate.js';
import { UserIdentity } from '../components/user-identity.js';
import { Link, navigate, useLocation } from '../router.js';
import { termValue, withTerm } from '../search-terms.js';
import { useSession } from '../session.js';

/** Users a page of the list shows. */
export const USERS_PAGE_SIZE = 25;

const STATUSES = ['active', 'dormant', 'suspended'] as const;
const LOGIN_TYPES = ['password', 'github', 'oidc', 'none'] as const;

export function UsersPage() {
  return (
    <UserAdminGate title="Users">
      <UsersList />
    </UserAdminGate>
  );
}

function UsersList() {
  const { user: me } = useSession();
  const { search } = useLocation();
  const query = search.get('q') ?? '';
  const offset = Math.max(0, Number(search.get('offset')) || 0);
  const [draft, setDraft] = useState(query);
  useEffect(() => setDraft(query), [query]);
  const { data, error, reload, setData } = useLoad(
    () => api<UsersResponse>('GET', '/users', { query: { q: query || undefined, limit: USERS_PAGE_SIZE, offset } }),
    [query, offset],
  );
  const siteRoles = useLoad(() => api<AssignableRole[]>('GET', '/users/roles'), []);
  const [open, setOpen] = useState<string>();
  const go = (nextQuery: string, nextOffset: number) => {
    const params = new URLSearchParams();
    if (nextQuery.trim() !== '') params.set('q', nextQuery.trim());
    if (nextOffset > 0) params.set('offset', String(nextOffset));
    const rest = params.toString();
    navigate(`/deployment/users${rest ? `?${rest}` : ''}`);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    go(draft, 0);
  };
  const replace = (user: User) => data && setData({ ...data, users: data.users.map((other) => (other.id === user.id ? user : other)) });
  return (
    <section className="page">
      <SectionTabs label="Deployment" tabs={DEPLOYMENT_TABS} />
      <div className="page-header">
        <h1>Users</h1>
        <Link href="/deployment/users/new" className="button button-primary">
          New user
        </Link>
      </div>
      <form className="filter" role="search" onSubmit={submit} aria-label="Search users">
        <label className="field field-inline">
          <span className="visually-hidden">Search users</span>
          <input
            type="search"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            placeholder="status:active role:owner login_type:password alice"
            aria-describedby="users-filter-hint"
          />
        </label>
        <button type="submit" className="button">
          Search
        </button>
        <label className="field filter-menu">
          <span className="field-label">Status</span>
          <select value={termValue(query, 'status')} onChange={(event) => go(withTerm(draft, 'status', event.target.value), 0)}>
            <option value="">Any</option>
            {STATUSES.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </label>
        <label className="field filter-menu">
          <span className="field-label">Role</span>
          <select value={termValue(query, 'role')} onChange={(event) => go(withTerm(draft, 'role', event.target.value), 0)}>
            <option value="">Any</option>
            {(siteRoles.data ?? []).map((role) => (
              <option key={role.name} value={role.name}>
                {role.display_name || role.name}
              </option>
            ))}
          </select>
        </label>
        <label className="field filter-menu">
          <span className="field-label">Login type</span>
          <select value={termValue(query, 'login_type')} onChange={(event) => go(withTerm(draft, 'login_type', event.target.value), 0)}>
            <option value="">Any</option>
            {LOGIN_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </label>
        <p id="users-filter-hint" className="field-hint">
          Search terms: <code>status:</code>, <code>role:</code>, <code>login_type:</code>, and words matched against usernames and emails.
        </p>
      </form>
      {error !== undefined || !data ? (
        <Loading error={error} />
      ) : (
        <>
          {data.users.length === 0 ? (
            <div className="empty">
              <p>No users match{query ? ` “${query}”` : ''}.</p>
            </div>
          ) : (
            <div className="table-scroll">
              <table className="table users-table" aria-label="Users">
                <thead>
                  <tr>
                    <th>User</th>
                    <th>Email</th>
                    <th>Roles</th>
                    <th>Login type</th>
                    <th>Status</th>
                    <th>Last seen</th>
                    <th>
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.users.map((user) => (
                    <Fragment key={user.id}>
                      <tr>
                        <td>
                          <UserIdentity user={user} />
                        </td>
                        <td>{user.email}</td>
                        <td>{user.roles.length === 0 ? <span className="muted">Member</span> : roleNames(user)}</td>
                        <td>{user.login_type}</td>
                        <td>
                          <StatusBadge status={user.status} />
                        </td>
                        <td>
                          <Time iso={user.last_seen_at} />
                        </td>
                        <td>
                          <button
                            type="button"
                            className="button button-quiet"
                            aria-expanded={open === user.id}
                            aria-controls={`manage-${user.id}`}
                            onClick={() => setOpen(open === user.id ? undefined : user.id)}
                          >
                            Manage <span className="visually-hidden">{user.username}</span>
                          </button>
                        </td>
                      </tr>
                      {open === user.id && (
                        <tr id={`manage-${user.id}`} className="users-manage-row">
                          <td colSpan={7}>
                            <UserActions
                              user={user}
                              me={me}
                              siteRoles={siteRoles.data ?? []}
                              onChange={replace}
                              onDelete={() => {
                                setOpen(undefined);
                                reload();
                              }}
                            />
                          </td>
                        </tr>
                      )}
                    </Fragment>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <Pager
            label="User pages"
            offset={offset}
            limit={USERS_PAGE_SIZE}
            shown={data.users.length}
            count={data.count}
            onOffset={(next) => go(query, next)}
          />
        </>
      )}
    </section>
  );
}

function roleNames(user: User): string {
  return user.roles.map((role) => role.display_name || role.name).join(', ');
}
