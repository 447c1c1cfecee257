// For the deployment's owners: its health report and its users (status and site roles).
import { useState } from 'react';
import type { AssignableRole, HealthReport, User, UsersResponse } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { StatusBadge, Time } from '../components/status.js';
import { DEPLOYMENT_TABS, SectionTabs } from '../components/section-tabs.js';
import { isOwner, useSession } from '../session.js';

const SECTIONS: readonly [keyof HealthReport, string][] = [
  ['access_url', 'Access URL'],
  ['database', 'Database'],
  ['websocket', 'WebSocket'],
  ['derp', 'Relay'],
  ['provisioner_daemons', 'Provisioners'],
  ['workspace_proxy', 'Workspace proxies'],
];

/** What every section of the report has; `error` is there only when its check found one. */
interface Section {
  readonly healthy: boolean;
  readonly severity: string;
  readonly dismissed: boolean;
  readonly error?: string;
  readonly warnings: readonly { code: string; message: string }[];
}

export function DeploymentPage() {
  const { user } = useSession();
  if (!isOwner(user)) {
    return (
      <section className="page">
        <h1>Deployment</h1>
        <p>Only the deployment’s owners see this page.</p>
      </section>
    );
  }
  return (
    <section className="page">
      <SectionTabs label="Deployment" tabs={DEPLOYMENT_TABS} />
      <h1>Deployment</h1>
      <Health />
      <Users />
    </section>
  );
}

function Health() {
  const [force, setForce] = useState(0);
  const { data, error } = useLoad(
    () => api<HealthReport>('GET', '/debug/health', { query: { force: force > 0 ? true : undefined } }),
    [force],
  );
  return (
    <section className="card" aria-labelledby="health-title">
      <div className="card-header">
        <h2 id="health-title">Health</h2>
        {data && <StatusBadge status={data.severity} label={data.healthy ? 'healthy' : data.severity} />}
        <button type="button" className="button button-quiet" onClick={() => setForce((n) => n + 1)}>
          Check again
        </button>
      </div>
      {!data ? (
        <Loading error={error}>Running the health checks…</Loading>
      ) : (
        <>
          <p className="muted">
            Checked <Time iso={data.time} /> · version {data.service_version}
          </p>
          <ul className="health-list">
            {SECTIONS.map(([key, label]) => {
              const section = data[key] as unknown as Section;
              return (
                <li key={key} className="health-item">
                  <div className="health-head">
                    <strong>{label}</strong>
                    <StatusBadge
                      status={section.dismissed ? 'disabled' : section.severity}
                      label={section.dismissed ? 'dismissed' : section.severity}
                    />
                  </div>
                  {section.error && <p className="log-error">{section.error}</p>}
                  {section.warnings.map((warning) => (
                    <p key={warning.code} className="muted">
                      <code>{warning.code}</code> {warning.message}
                    </p>
                  ))}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}

function Users() {
  const { data, error, setData } = useLoad(() => api<UsersResponse>('GET', '/users', { query: { limit: 100 } }), []);
  const roles = useLoad(() => api<AssignableRole[]>('GET', '/users/roles'), []);
  const replace = (user: User) => data && setData({ ...data, users: data.users.map((other) => (other.id === user.id ? user : other)) });
  return (
    <section className="card" aria-labelledby="users-title">
      <h2 id="users-title">Users {data && <span className="muted">({data.count})</span>}</h2>
      {!data ? (
        <Loading error={error} />
      ) : (
        <ul className="user-list">
          {data.users.map((user) => (
            <UserRow key={user.id} user={user} roles={roles.data ?? []} onChange={replace} />
          ))}
        </ul>
      )}
    </section>
  );
}

function UserRow({ user, roles, onChange }: { user: User; roles: readonly AssignableRole[]; onChange: (user: User) => void }) {
  const { user: me } = useSession();
  const [status, setStatus] = useAction(async (to: 'suspend' | 'activate') => {
    onChange(await api<User>('PUT', `/users/${user.id}/status/${to}`));
    return to === 'suspend' ? 'Suspended.' : 'Activated.';
  });
  const [roleChange, toggleRole] = useAction(async (role: string, on: boolean) => {
    const current = user.roles.map((held) => held.name).filter((name) => name !== 'member');
    const next = on ? [...new Set([...current, role])] : current.filter((name) => name !== role);
    onChange(await api<User>('PUT', `/users/${user.id}/roles`, { body: { roles: next } }));
    return 'Roles saved.';
  });
  const held = new Set(user.roles.map((role) => role.name));
  return (
    <li className="user-row">
      <div className="user-main">
        <strong>{user.username}</strong>
        <span className="muted">{user.email}</span>
        <StatusBadge status={user.status} />
        <span className="muted">
          seen <Time iso={user.last_seen_at} />
        </span>
      </div>
      <fieldset className="roles" disabled={roleChange.state === 'pending'}>
        <legend className="visually-hidden">Site roles of {user.username}</legend>
        {roles
          .filter((role) => role.assignable)
          .map((role) => (
            <label key={role.name} className="checkbox">
              <input type="checkbox" checked={held.has(role.name)} onChange={(event) => void toggleRole(role.name, event.target.checked)} />
              {role.display_name || role.name}
            </label>
          ))}
      </fieldset>
      <div className="inline-actions">
        {user.id !== me.id &&
          (user.status === 'suspended' ? (
            <button type="button" className="button" onClick={() => void setStatus('activate')} disabled={status.state === 'pending'}>
              Activate
            </button>
          ) : (
            <button
              type="button"
              className="button button-danger-quiet"
              onClick={() => void setStatus('suspend')}
              disabled={status.state === 'pending'}
            >
              Suspend
            </button>
          ))}
        <ActionStatus state={status} />
        <ActionStatus state={roleChange} pending="Saving…" />
      </div>
    </li>
  );
}
