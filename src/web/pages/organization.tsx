// One organization's settings: its display name, description and icon.
import { useState, type FormEvent } from 'react';
import type { Organization } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { SectionTabs } from '../components/section-tabs.js';
import { UserAdminGate } from '../components/user-admin-gate.js';
import { Link } from '../router.js';
import { organizationPath } from './organizations.js';

/** The heading and tabs every page of an organization starts with. */
export function OrganizationHeader({ name, organization }: { name: string; organization: Organization | undefined }) {
  return (
    <>
      <p className="breadcrumb">
        <Link href="/organizations">Organizations</Link> / {organization?.display_name || name}
      </p>
      <SectionTabs
        label="Organization"
        tabs={[
          { href: organizationPath(name), label: 'Settings' },
          { href: organizationPath(name, 'members'), label: 'Members' },
          { href: organizationPath(name, 'roles'), label: 'Roles' },
        ]}
      />
    </>
  );
}

export function OrganizationPage({ name }: { name: string }) {
  return (
    <UserAdminGate title="Organization">
      <OrganizationSettings name={name} />
    </UserAdminGate>
  );
}

function OrganizationSettings({ name }: { name: string }) {
  const { data, error, setData } = useLoad(() => api<Organization>('GET', `/organizations/${encodeURIComponent(name)}`), [name]);
  return (
    <section className="page">
      <OrganizationHeader name={name} organization={data} />
      <h1>{data ? data.display_name || data.name : name}</h1>
      {!data ? <Loading error={error} /> : <SettingsForm key={data.id} organization={data} onSaved={setData} />}
    </section>
  );
}

function SettingsForm({ organization, onSaved }: { organization: Organization; onSaved: (organization: Organization) => void }) {
  const [displayName, setDisplayName] = useState(organization.display_name);
  const [description, setDescription] = useState(organization.description);
  const [icon, setIcon] = useState(organization.icon);
  const [saved, save] = useAction(async () => {
    const body = { display_name: displayName.trim(), description, icon: icon.trim() };
    onSaved(await api<Organization>('PATCH', `/organizations/${organization.id}`, { body }));
    return 'Saved.';
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save();
  };
  return (
    <form className="form card" onSubmit={submit} aria-label="Organization settings">
      <h2>Settings</h2>
      <p className="muted">
        Name <code>{organization.name}</code>
        {organization.is_default && ' · the default organization, which every new user joins'}
      </p>
      <label className="field">
        <span className="field-label">Display name</span>
        <input name="display_name" value={displayName} autoComplete="off" onChange={(event) => setDisplayName(event.target.value)} />
      </label>
      <label className="field">
        <span className="field-label">Description</span>
        <textarea name="description" value={description} rows={3} onChange={(event) => setDescription(event.target.value)} />
      </label>
      <label className="field">
        <span className="field-label">Icon URL</span>
        <input
          name="icon"
          value={icon}
          autoComplete="off"
          placeholder="/emojis/1f3e2.png"
          onChange={(event) => setIcon(event.target.value)}
        />
      </label>
      <div className="form-actions">
        <button type="submit" className="button button-primary">
          Save
        </button>
        <ActionStatus state={saved} pending="Saving…" />
      </div>
    </form>
  );
}
