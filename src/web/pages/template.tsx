// One template: what it is, its versions (which one is active), how long builds take, and how
// to push a new version.
import type { Template, TemplateVersion } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { CopyCommand } from '../components/copy-command.js';
import { Loading, useLoad } from '../components/feedback.js';
import { formatDuration, Icon, StatusBadge, Time } from '../components/status.js';
import { Link } from '../router.js';
import { useSession } from '../session.js';

export function TemplatePage({ name }: { name: string }) {
  const { user } = useSession();
  const organization = user.organization_ids[0] ?? 'default';
  // By name within the user's organization, which finds deprecated templates too.
  const { data, error } = useLoad(
    () => api<Template>('GET', `/organizations/${organization}/templates/${encodeURIComponent(name)}`),
    [organization, name],
  );
  if (!data) {
    return (
      <section className="page">
        <p className="breadcrumb">
          <Link href="/templates">Templates</Link> / {name}
        </p>
        <Loading error={error} />
      </section>
    );
  }
  return <TemplateDetails template={data} />;
}

function TemplateDetails({ template }: { template: Template }) {
  const versions = useLoad(() => api<TemplateVersion[]>('GET', `/templates/${template.id}/versions`), [template.id]);
  const stats = Object.entries(template.build_time_stats).filter(([, { P50 }]) => P50 != null);
  return (
    <section className="page">
      <p className="breadcrumb">
        <Link href="/templates">Templates</Link> / {template.name}
      </p>
      <div className="page-header">
        <div className="template-summary">
          <Icon src={template.icon} size={40} />
          <div>
            <h1>{template.display_name || template.name}</h1>
            <p className="muted">{template.description || 'No description.'}</p>
          </div>
        </div>
        <div className="header-actions">
          <Link href={`/templates/${encodeURIComponent(template.name)}/permissions`} className="button">
            Permissions
          </Link>
          <Link href={`/templates/${encodeURIComponent(template.name)}/workspace`} className="button button-primary">
            Create workspace
          </Link>
        </div>
      </div>
      {template.deprecated && (
        <div className="notice notice-warn">
          <strong>Deprecated.</strong> {template.deprecation_message}
        </div>
      )}
      <div className="workspace-grid">
        <section className="card" aria-labelledby="versions-title">
          <h2 id="versions-title">Versions</h2>
          {!versions.data ? (
            <Loading error={versions.error} />
          ) : (
            <div className="table-scroll">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Import</th>
                    <th scope="col">By</th>
                    <th scope="col">Created</th>
                    <th scope="col">Message</th>
                  </tr>
                </thead>
                <tbody>
                  {[...versions.data].reverse().map((version) => (
                    <tr key={version.id}>
                      <td>
                        <strong>{version.name}</strong>
                        {version.id === template.active_version_id && <span className="badge badge-good">active</span>}
                      </td>
                      <td>
                        <StatusBadge status={version.job.status} />
                      </td>
                      <td>{version.created_by.username}</td>
                      <td>
                        <Time iso={version.created_at} />
                      </td>
                      <td className="muted">{version.message}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
        <aside className="workspace-side">
          <section className="card" aria-labelledby="stats-title">
            <h2 id="stats-title">Build times</h2>
            {stats.length === 0 ? (
              <p className="muted">No builds yet.</p>
            ) : (
              <ul className="plain-list stats">
                {stats.map(([transition, { P50: p50, P95: p95 }]) => (
                  <li key={transition}>
                    <span className="stats-name">{transition}</span>
                    <span>
                      {formatDuration(p50)} typical <span className="muted">· {formatDuration(p95)} slowest 5%</span>
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section className="card" aria-labelledby="push-title">
            <h2 id="push-title">Push a new version</h2>
            <p className="muted">From the template’s directory:</p>
            <CopyCommand command={`cove templates push ${template.name}`} />
          </section>
        </aside>
      </div>
    </section>
  );
}
