// A workspace's settings, one section per address: its name, the values of its parameters, when it
// starts and stops on its own, and which template version it builds from. The workspace is
// followed live, so that a build started here shows its progress.
import { useEffect, useState } from 'react';
import type { Workspace } from '../../sdk/wire/index.js';
import { api, watchWorkspace } from '../api.js';
import { Loading, useLoad } from '../components/feedback.js';
import { SectionTabs } from '../components/section-tabs.js';
import { StatusBadge } from '../components/status.js';
import { Link, type WorkspaceSettingsSection } from '../router.js';
import { GeneralSettings } from './workspace-settings-general.js';
import { ParameterSettings } from './workspace-settings-parameters.js';
import { ScheduleSettings } from './workspace-settings-schedule.js';
import { VersionSettings } from './workspace-settings-version.js';

export function WorkspaceSettingsPage({ owner, name, section }: { owner: string; name: string; section: WorkspaceSettingsSection }) {
  const initial = useLoad(
    () => api<Workspace>('GET', `/users/${encodeURIComponent(owner)}/workspace/${encodeURIComponent(name)}`),
    [owner, name],
  );
  const [workspace, setWorkspace] = useState<Workspace>();
  const id = initial.data?.id;
  useEffect(() => {
    if (initial.data) setWorkspace(initial.data);
  }, [initial.data]);
  useEffect(() => (id ? watchWorkspace(id, setWorkspace) : undefined), [id]);

  if (!workspace) return <Loading error={initial.error} />;
  const base = `/@${encodeURIComponent(workspace.owner_name)}/${encodeURIComponent(workspace.name)}`;
  const tabs = [
    { href: `${base}/settings`, label: 'General' },
    { href: `${base}/settings/parameters`, label: 'Parameters' },
    { href: `${base}/settings/schedule`, label: 'Schedule' },
    { href: `${base}/settings/version`, label: 'Version' },
  ];
  return (
    <section className="page page-narrow">
      <div className="page-header">
        <div>
          <p className="breadcrumb">
            <Link href="/workspaces">Workspaces</Link> / {workspace.owner_name} / <Link href={base}>{workspace.name}</Link>
          </p>
          <h1>
            Settings of {workspace.name} <StatusBadge status={workspace.latest_build.status} />
          </h1>
        </div>
      </div>
      <SectionTabs label="Workspace settings" tabs={tabs} />
      <div className="settings-layout">
        {section === 'general' && <GeneralSettings workspace={workspace} />}
        {section === 'parameters' && <ParameterSettings workspace={workspace} />}
        {section === 'schedule' && <ScheduleSettings workspace={workspace} />}
        {section === 'version' && <VersionSettings workspace={workspace} />}
      </div>
    </section>
  );
}
