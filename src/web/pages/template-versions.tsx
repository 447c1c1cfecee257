// Every version of a template, newest first: which one is active, how each import went, and the
// actions on them (promote, archive, unarchive) with links to each version's files and editor.
import { useState } from 'react';
import type { Template, TemplateVersion } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { StatusBadge, Time } from '../components/status.js';
import { TemplateFrame, TemplateLoading, templatePath, useTemplate } from '../components/template-frame.js';
import { Link } from '../router.js';

/** Versions on one page of the list. */
const PAGE_SIZE = 20;

export function TemplateVersionsPage({ name }: { name: string }) {
  const { data, error, setData } = useTemplate(name);
  if (!data) return <TemplateLoading name={name} error={error} />;
  return (
    <TemplateFrame template={data}>
      <VersionList template={data} onTemplate={setData} />
    </TemplateFrame>
  );
}

function VersionList({ template, onTemplate }: { template: Template; onTemplate: (template: Template) => void }) {
  const [showArchived, setShowArchived] = useState(false);
  const [page, setPage] = useState(0);
  // The API lists oldest first and counts nothing: all are read, and the pages are cut here.
  const versions = useLoad(
    () => api<TemplateVersion[]>('GET', `/templates/${template.id}/versions`, { query: showArchived ? { include_archived: true } : {} }),
    [template.id, showArchived],
  );
  const [action, run] = useAction(async (verb: 'promote' | 'archive' | 'unarchive', version: TemplateVersion) => {
    if (verb === 'promote') {
      await api('PATCH', `/templates/${template.id}/versions`, { body: { id: version.id } });
      onTemplate(await api<Template>('GET', `/templates/${template.id}`));
      return `${version.name} is now the active version.`;
    }
    await api('POST', `/templateversions/${version.id}/${verb}`);
    versions.reload();
    return verb === 'archive' ? `Archived ${version.name}.` : `Unarchived ${version.name}.`;
  });

  const newestFirst = versions.data ? [...versions.data].reverse() : [];
  const pages = Math.max(1, Math.ceil(newestFirst.length / PAGE_SIZE));
  const current = Math.min(page, pages - 1);
  const shown = newestFirst.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE);
  return (
    <section className="card" aria-labelledby="all-versions-title">
      <div className="card-header">
        <h2 id="all-versions-title">Versions</h2>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={showArchived}
            onChange={(event) => {
              setShowArchived(event.target.checked);
              setPage(0);
            }}
          />
          Show archived versions
        </label>
      </div>
      <ActionStatus state={action} />
      {!versions.data ? (
        <Loading error={versions.error} />
      ) : (
        <>
          <div className="table-scroll">
            <table className="table template-versions">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Import</th>
                  <th scope="col">Created by</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((version) => (
                  <VersionRow
                    key={version.id}
                    template={template}
                    version={version}
                    busy={action.state === 'pending'}
                    onAction={(verb) => void run(verb, version)}
                  />
                ))}
              </tbody>
            </table>
          </div>
          {pages > 1 && (
            <nav className="pager" aria-label="Pages of versions">
              <span className="pager-range" role="status">
                {current * PAGE_SIZE + 1}–{current * PAGE_SIZE + shown.length} of {newestFirst.length}
              </span>
              <button type="button" className="button" disabled={current === 0} onClick={() => setPage(current - 1)}>
                Newer
              </button>
              <button type="button" className="button" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
                Older
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}

function VersionRow({
  template,
  version,
  busy,
  onAction,
}: {
  template: Template;
  version: TemplateVersion;
  busy: boolean;
  onAction: (verb: 'promote' | 'archive' | 'unarchive') => void;
}) {
  const active = version.id === template.active_version_id;
  const versionPath = `${templatePath(template.name, 'versions')}/${encodeURIComponent(version.name)}`;
  return (
    <tr data-version={version.name}>
      <td>
        <strong>{version.name}</strong>
        {active && <span className="badge badge-good">active</span>}
        {version.archived && <span className="badge badge-idle">archived</span>}
        {version.message && <p className="muted template-version-message">{version.message}</p>}
      </td>
      <td>
        <StatusBadge status={version.job.status} />
      </td>
      <td>{version.created_by.username}</td>
      <td>
        <Time iso={version.created_at} />
      </td>
      <td>
        <div className="inline-actions">
          <Link href={versionPath} className="button button-quiet" aria-label={`Files of ${version.name}`}>
            Files
          </Link>
          <Link href={`${versionPath}/edit`} className="button button-quiet" aria-label={`Edit ${version.name}`}>
            Edit
          </Link>
          {!active && !version.archived && version.job.status === 'succeeded' && (
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() => onAction('promote')}
              aria-label={`Promote ${version.name}`}
            >
              Promote
            </button>
          )}
          {!active && !version.archived && (
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() => onAction('archive')}
              aria-label={`Archive ${version.name}`}
            >
              Archive
            </button>
          )}
          {version.archived && (
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() => onAction('unarchive')}
              aria-label={`Unarchive ${version.name}`}
            >
              Unarchive
            </button>
          )}
        </div>
      </td>
    </tr>
  );
}
