// For the deployment's owners: a compact summary of its health, with the way on to the full report
// and to the other pages of the deployment.
import type { HealthReport } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { Loading, useLoad } from '../components/feedback.js';
import { HEALTH_PANELS, sectionOf } from '../components/health-section.js';
import { StatusBadge, Time } from '../components/status.js';
import { DEPLOYMENT_TABS, SectionTabs } from '../components/section-tabs.js';
import { Link } from '../router.js';
import { isOwner, useSession } from '../session.js';

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
      <section className="card" aria-labelledby="people-title">
        <h2 id="people-title">Users</h2>
        <p>
          The deployment’s users, their status and site roles are on the <Link href="/deployment/users">users page</Link>.
        </p>
      </section>
    </section>
  );
}

function Health() {
  const { data, error } = useLoad(() => api<HealthReport>('GET', '/debug/health'), []);
  return (
    <section className="card" aria-labelledby="health-title">
      <div className="card-header">
        <h2 id="health-title">Health</h2>
        {data && <StatusBadge status={data.severity} label={data.healthy ? 'healthy' : data.severity} />}
        <Link href="/deployment/health" className="button button-quiet">
          Health details
        </Link>
      </div>
      {!data ? (
        <Loading error={error}>Reading the health report…</Loading>
      ) : (
        <>
          <p className="muted">
            Checked <Time iso={data.time} /> · version {data.service_version}
          </p>
          <ul className="health-list">
            {HEALTH_PANELS.map(({ key, label }) => {
              const section = sectionOf(data, key);
              const findings = (section.error ? 1 : 0) + section.warnings.length;
              return (
                <li key={key} className="health-item">
                  <div className="health-head">
                    <strong>{label}</strong>
                    <StatusBadge
                      status={section.dismissed ? 'disabled' : section.severity}
                      label={section.dismissed ? 'dismissed' : section.severity}
                    />
                  </div>
                  {findings > 0 && <p className="muted">{findings === 1 ? '1 finding' : `${findings} findings`}</p>}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
