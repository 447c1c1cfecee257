// One template at a glance: its newest versions (which one is active), how long builds take, and
// how to push a new version. The other tabs manage it.
import type { Template, TemplateVersion } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { CopyCommand } from '../components/copy-command.js';
import { Loading, useLoad } from '../components/feedback.js';
import { formatDuration, StatusBadge, Time } from '../components/status.js';
import { TemplateFrame, TemplateLoading, templatePath, useTemplate } from '../components/template-frame.js';
import { Link } from '../router.js';

/** How many of the newest versions the summary lists; the Versions tab has them all. */
const RECENT_VERSIONS = 5;

export function TemplatePage({ name }: { name: string }) {
  const { data, error } = useTemplate(name);
  if (!data) return <TemplateLoading name={name} error={error} />;
  return <TemplateDetails template={data} />;
}

function TemplateDetails({ template }: { template: Template }) {
  const versions = useLoad(() => api<TemplateVersion[]>('GET', `/templates/${template.id}/versions`), [template.id]);
  const stats = Object.entries(template.build_time_stats).filter(([, { P50 }]) => P50 != null);
  const recent = versions.data ? [...versions.data].reverse().slice(0, RECENT_VERSIONS) : [];
  return (
    <TemplateFrame template={template}>
      <div className="workspace-grid">
        <section className="card" aria-labelledby="versions-title">
          <div className="card-header">
            <h2 id="versions-title">Recent versions</h2>
            <Link href={templatePath(template.name, 'versions')} className="button">
              All versions
            </Link>
          </div>
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
                  {recent.map((version) => (
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
    </TemplateFrame>
  );
}
