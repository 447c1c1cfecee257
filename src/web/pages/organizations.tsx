// The organizations of the deployment, and a form that makes one for owners (the server refuses
// others).
import { useState, type FormEvent } from 'react';
import type { Organization } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { DEPLOYMENT_TABS, SectionTabs } from '../components/section-tabs.js';
import { UserAdminGate } from '../components/user-admin-gate.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';

/** The dashboard address of an organization's page, or of one of its tabs. */
export function organizationPath(name: string, tab?: 'members' | 'roles'): string {
  return `/organizations/${encodeURIComponent(name)}${tab ? `/${tab}` : ''}`;
}

export function OrganizationsPage() {
  return (
    <UserAdminGate title="Organizations">
      <OrganizationsList />
    </UserAdminGate>
  );
}

function OrganizationsList() {
  const { user } = useSession();
  const { data, error } = useLoad(() => api<Organization[]>('GET', '/organizations'), []);
  const mayCreate = user.roles.some((role) => role.name === 'owner');
  return (
    <section className="page">
      <SectionTabs label="Deployment" tabs={DEPLOYMENT_TABS} />
      <h1>Organizations</h1>
      {!data ? (
        <Loading error={error} />
      ) : (
        <div className="table-scroll">
          <table className="table" aria-label="Organizations">
            <thead>
              <tr>
                <th>Name</th>
                <th>Description</th>
                <th>
                  <span className="visually-hidden">Pages</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.map((organization) => (
                <tr key={organization.id}>
                  <td>
                    <span className="organization-name">
                      {organization.icon && <img className="organization-icon" src={organization.icon} alt="" width={24} height={24} />}
                      <Link href={organizationPath(organization.name)}>{organization.display_name || organization.name}</Link>
                      {organization.is_default && <span className="badge badge-idle">default</span>}
                    </span>
                  </td>
                  <td>{organization.description || <span className="muted">No description</span>}</td>
                  <td>
                    <span className="inline-actions">
                      <Link href={organizationPath(organization.name, 'members')}>
                        Members<span className="visually-hidden"> of {organization.name}</span>
                      </Link>
                      <Link href={organizationPath(organization.name, 'roles')}>
                        Roles<span className="visually-hidden"> of {organization.name}</span>
                      </Link>
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {mayCreate && <NewOrganization />}
    </section>
  );
}

function NewOrganization() {
  const [name, setName] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [description, setDescription] = useState('');
  const [created, create] = useAction(async () => {
    const organization = await api<Organization>('POST', '/organizations', {
      body: { name: name.trim(), display_name: displayName.trim() || undefined, description },
    });
    navigate(organizationPath(organization.name));
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void create();
  };
  return (
    <form className="form card admin-card" onSubmit={submit} aria-label="New organization">
      <h2>New organization</h2>
      <label className="field">
        <span className="field-label">Name</span>
        <input
          name="name"
          value={name}
          required
          autoComplete="off"
          aria-describedby="organization-name-hint"
          onChange={(event) => setName(event.target.value)}
        />
      </label>
      <p id="organization-name-hint" className="field-hint">
        Lowercase letters, digits and hyphens; it is part of the organization’s addresses.
      </p>
      <label className="field">
        <span className="field-label">
          Display name <span className="required">(optional)</span>
        </span>
        <input name="display_name" value={displayName} autoComplete="off" onChange={(event) => setDisplayName(event.target.value)} />
      </label>
      <label className="field">
        <span className="field-label">
          Description <span className="required">(optional)</span>
        </span>
        <textarea name="description" value={description} rows={2} onChange={(event) => setDescription(event.target.value)} />
      </label>
      <div className="form-actions">
        <button type="submit" className="button button-primary">
          Create organization
        </button>
        <ActionStatus state={created} pending="Creating…" />
      </div>
    </form>
  );
}
