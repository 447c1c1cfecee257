// For the deployment's owners: the health report section by section, a fresh run of the checks on
// demand, and the sections an operator has chosen to dismiss.
import type { HealthReport, HealthSection, HealthSettings } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { HEALTH_PANELS, HealthSectionPanel, sectionOf } from '../components/health-section.js';
import { DEPLOYMENT_TABS, SectionTabs } from '../components/section-tabs.js';
import { StatusBadge, Time } from '../components/status.js';
import { isOwner, useSession } from '../session.js';

export function HealthPage() {
  const { user } = useSession();
  if (!isOwner(user)) {
    return (
      <section className="page">
        <h1>Health</h1>
        <p>Only the deployment’s owners see this page.</p>
      </section>
    );
  }
  return (
    <section className="page">
      <SectionTabs label="Deployment" tabs={DEPLOYMENT_TABS} />
      <Report />
    </section>
  );
}

function Report() {
  const report = useLoad(() => api<HealthReport>('GET', '/debug/health'), []);
  // The daemon serves its last report; "Check again" runs the checks anew (`force`).
  const [recheck, checkAgain] = useAction(async () => {
    report.setData(await api<HealthReport>('GET', '/debug/health', { query: { force: true } }));
    return 'Checked again.';
  });
  const settings = useLoad(() => api<HealthSettings>('GET', '/debug/health/settings'), []);
  const [dismissal, setDismissed] = useAction(async (name: HealthSection, label: string, dismiss: boolean) => {
    const current = settings.data?.dismissed_healthchecks ?? [];
    const next = dismiss ? [...new Set([...current, name])] : current.filter((other) => other !== name);
    settings.setData(await api<HealthSettings>('PUT', '/debug/health/settings', { body: { dismissed_healthchecks: next } }));
    return dismiss ? `Dismissed ${label}.` : `${label} counts again.`;
  });
  const dismissed = new Set<string>(settings.data?.dismissed_healthchecks ?? []);
  const data = report.data;
  return (
    <>
      <div className="page-header">
        <div className="health-title">
          <h1>Health</h1>
          {data && <StatusBadge status={data.severity} label={data.healthy ? 'healthy' : data.severity} />}
        </div>
        <div className="header-actions">
          <button type="button" className="button" onClick={() => void checkAgain()} disabled={recheck.state === 'pending'}>
            Check again
          </button>
          <ActionStatus state={recheck} pending="Running the checks…" />
        </div>
      </div>
      <ActionStatus state={dismissal} pending="Saving…" />
      {!data ? (
        <Loading error={report.error}>Running the health checks…</Loading>
      ) : (
        <>
          <p className="muted" role="status">
            Checked <Time iso={data.time} /> · version {data.service_version}
          </p>
          {settings.error !== undefined && <Loading error={settings.error} />}
          {HEALTH_PANELS.map((panel) => (
            <HealthSectionPanel
              key={panel.key}
              label={panel.label}
              section={sectionOf(data, panel.key)}
              dismissed={settings.data ? dismissed.has(panel.name) : sectionOf(data, panel.key).dismissed}
              busy={dismissal.state === 'pending' || !settings.data}
              onDismiss={(dismiss) => void setDismissed(panel.name, panel.label, dismiss)}
            />
          ))}
        </>
      )}
    </>
  );
}
