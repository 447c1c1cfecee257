// The templates a user can create workspaces from.
import type { Template } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { Loading, useLoad } from '../components/feedback.js';
import { CopyCommand } from '../components/copy-command.js';
import { formatDuration, Icon } from '../components/status.js';
import { Link } from '../router.js';

/** The check that asks whether the user may make templates in some organization. */
const MAY_CREATE = { create: { action: 'create', object: { resource_type: 'template', any_org: true } } };

export function TemplatesPage() {
  const { data, error } = useLoad(() => api<Template[]>('GET', '/templates'), []);
  // Only those who may make templates are offered to; the server refuses the others anyway.
  const mayCreate = useLoad(
    () => api<Record<string, boolean>>('POST', '/authcheck', { body: { checks: MAY_CREATE } }).then((answer) => answer['create'] === true),
    [],
  );
  return (
    <section className="page">
      <div className="page-header">
        <h1>Templates</h1>
        {mayCreate.data && (
          <Link href="/templates/new" className="button button-primary">
            New template
          </Link>
        )}
      </div>
      {!data ? (
        <Loading error={error} />
      ) : data.length === 0 ? (
        <div className="empty">
          <p>No templates yet. Start from an example and push it with the CLI:</p>
          <CopyCommand command="cove templates init --id local-shell my-template && cove templates push my-template" />
        </div>
      ) : (
        <ul className="card-grid" aria-label="Templates">
          {data.map((template) => (
            <li key={template.id} className="card template-card">
              <div className="template-summary">
                <Icon src={template.icon} size={32} />
                <div>
                  <Link href={`/templates/${encodeURIComponent(template.name)}`} className="template-name">
                    {template.display_name || template.name}
                  </Link>
                  <p className="muted">{template.description || 'No description.'}</p>
                </div>
              </div>
              <p className="muted template-facts">
                {template.active_user_count >= 0 && <>{template.active_user_count} active · </>}
                builds in about {formatDuration(template.build_time_stats['start']?.P50)}
                {template.deprecated && (
                  <>
                    {' '}
                    · <span className="badge badge-warn">deprecated</span>
                  </>
                )}
              </p>
              <Link href={`/templates/${encodeURIComponent(template.name)}/workspace`} className="button">
                Create workspace
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
