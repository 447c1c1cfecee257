// For the deployment's owners: what group and role sync from the OIDC provider make of a user's
// last claims, so "sync does nothing" can be explained from what actually arrived.
import { useState, type FormEvent } from 'react';
import type { IdpSyncPreview } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { Loading, useLoad } from '../components/feedback.js';
import { Time } from '../components/status.js';
import { navigate } from '../router.js';
import { isOwner, useSession } from '../session.js';

const GROUP_STATUS_TEXT: Readonly<Record<IdpSyncPreview['group_sync']['groups'][number]['status'], string>> = {
  mapped: 'synced',
  filtered: 'filtered out by the regex',
  auto_created: 'would be created',
  missing: 'missing (not created)',
};

const list = (names: readonly string[]) => (names.length === 0 ? 'none' : names.join(', '));

export function IdpSyncPreviewPage({ user }: { user: string | undefined }) {
  const session = useSession();
  const [draft, setDraft] = useState(user ?? '');
  if (!isOwner(session.user)) {
    return (
      <section className="page">
        <h1>IdP sync preview</h1>
        <p>Only the deployment’s owners see this page.</p>
      </section>
    );
  }
  const show = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim() !== '') navigate(`/deployment/idp-sync?user=${encodeURIComponent(draft.trim())}`);
  };
  return (
    <section className="page">
      <h1>IdP sync preview</h1>
      <form className="filter" onSubmit={show}>
        <label className="field field-inline">
          <span>User</span>
          <input value={draft} onChange={(event) => setDraft(event.target.value)} placeholder="username or email" />
        </label>
        <button type="submit" className="button">
          Preview
        </button>
      </form>
      {user !== undefined && <Preview key={user} user={user} />}
    </section>
  );
}

function Preview({ user }: { user: string }) {
  const { data, error } = useLoad(() => api<IdpSyncPreview>('GET', `/users/${encodeURIComponent(user)}/idp-sync-preview`), [user]);
  if (!data) return <Loading error={error}>Reading the claims…</Loading>;
  const groups = data.group_sync;
  const roles = data.role_sync;
  return (
    <>
      <section className="card" aria-labelledby="claims-title">
        <h2 id="claims-title">Claims of {data.username}</h2>
        {data.claims === null ? (
          <p>No OIDC claims stored: {data.username} has not signed in with OIDC, so sync has nothing to work from.</p>
        ) : (
          <>
            <p className="muted">
              Last OIDC sign-in <Time iso={data.claims_received_at ?? ''} />
            </p>
            <pre className="claims">{JSON.stringify(data.claims, null, 2)}</pre>
          </>
        )}
      </section>
      <section className="card" aria-labelledby="groups-title">
        <h2 id="groups-title">Groups</h2>
        {!groups.enabled ? (
          <p>Group sync is off (--oidc-group-field is not set).</p>
        ) : (
          <>
            <p>
              Claim <code>{groups.field}</code>: {list(groups.claim_values)} · regex filter{' '}
              {groups.regex_filter === '' ? 'none' : <code>{groups.regex_filter}</code>} · auto-create{' '}
              {groups.auto_create_missing ? 'on' : 'off'}
            </p>
            {groups.error !== '' && (
              <p className="log-error">The claim cannot be read, so memberships are left as they are: {groups.error}</p>
            )}
            <div className="table-scroll">
              <table className="table" aria-label="Groups the claims map to">
                <thead>
                  <tr>
                    <th scope="col">Claim value</th>
                    <th scope="col">Group</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Member now</th>
                  </tr>
                </thead>
                <tbody>
                  {groups.groups.map((group) => (
                    <tr key={`${group.claim_value}>${group.group_name}`}>
                      <td>{group.claim_value}</td>
                      <td>{group.group_name}</td>
                      <td>{GROUP_STATUS_TEXT[group.status]}</td>
                      <td>{group.member ? 'yes' : 'no'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p>Removed at the next sign-in: {list(groups.groups_removed)}</p>
          </>
        )}
        {data.allowed_groups.groups.length > 0 && (
          <p>
            Allowed groups {list(data.allowed_groups.groups)}:{' '}
            {data.allowed_groups.allowed ? 'these claims are let in' : 'these claims are refused'}
          </p>
        )}
      </section>
      <section className="card" aria-labelledby="roles-title">
        <h2 id="roles-title">Site roles</h2>
        {!roles.enabled ? (
          <p>Role sync is off (--oidc-user-role-field is not set).</p>
        ) : (
          <>
            <p>
              Claim <code>{roles.field}</code>: {list(roles.claim_values)}
            </p>
            {roles.error !== '' && <p className="log-error">The claim cannot be read, so sign-in is refused: {roles.error}</p>}
            <ul>
              {roles.roles.map((role) => (
                <li key={`${role.claim_value}>${role.role}`}>
                  {role.claim_value} → {role.role}: {role.status === 'assigned' ? 'assigned' : 'ignored (not an assignable site role)'}
                </li>
              ))}
            </ul>
            <p>Site roles after sync: {list(roles.site_roles)}</p>
          </>
        )}
      </section>
    </>
  );
}
