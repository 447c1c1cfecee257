// One version of a template: how its import went, who made it and why, its README, and its files
// in a read-only viewer.
import { useEffect, useState } from 'react';
import { CodeEditor } from '../components/code-editor.js';
import { ErrorMessage, Loading } from '../components/feedback.js';
import { StatusBadge, Time } from '../components/status.js';
import { Link } from '../router.js';
import { textOf, type TemplateFile } from '../template-archive.js';
import { FileTree, firstFile, useTemplateVersion, type LoadedVersion } from './template-version-files.js';

export function TemplateVersionPage({ template, version }: { template: string; version: string }) {
  const { data, error } = useTemplateVersion(template, version);
  const templatePath = `/templates/${encodeURIComponent(template)}`;
  return (
    <section className="page">
      <p className="breadcrumb">
        <Link href="/templates">Templates</Link> / <Link href={templatePath}>{template}</Link> / {version}
      </p>
      {data ? <VersionDetails loaded={data} /> : <Loading error={error} />}
    </section>
  );
}

function VersionDetails({ loaded }: { loaded: LoadedVersion }) {
  const { template, version } = loaded;
  const active = template.active_version_id === version.id;
  return (
    <>
      <div className="page-header">
        <div>
          <h1>
            Version {version.name} {active && <span className="badge badge-good">active</span>}
          </h1>
          <p className="muted">of {template.display_name || template.name}</p>
        </div>
        <div className="header-actions">
          <Link
            href={`/templates/${encodeURIComponent(template.name)}/versions/${encodeURIComponent(version.name)}/edit`}
            className="button button-primary"
          >
            Edit files
          </Link>
        </div>
      </div>
      <section className="card" aria-labelledby="version-details-title">
        <h2 id="version-details-title">Details</h2>
        <dl className="version-details">
          <dt>Import</dt>
          <dd>
            <StatusBadge status={version.job.status} />
          </dd>
          <dt>Created by</dt>
          <dd>{version.created_by.username}</dd>
          <dt>Created</dt>
          <dd>
            <Time iso={version.created_at} />
          </dd>
          <dt>Message</dt>
          <dd>{version.message || <span className="muted">No message.</span>}</dd>
        </dl>
        {version.job.error && (
          <div className="notice notice-error">
            <strong>The import failed.</strong>
            <p className="notice-detail">{version.job.error}</p>
          </div>
        )}
      </section>
      {version.readme.trim() !== '' && (
        <section className="card" aria-labelledby="version-readme-title">
          <h2 id="version-readme-title">README</h2>
          <pre className="version-readme" tabIndex={0}>
            {version.readme}
          </pre>
        </section>
      )}
      <section className="card" aria-labelledby="version-files-title">
        <h2 id="version-files-title">Files</h2>
        {loaded.archiveError ? (
          <ErrorMessage error={loaded.archiveError} />
        ) : !loaded.archive ? (
          <Loading error={undefined}>Reading the files…</Loading>
        ) : (
          <FileBrowser files={loaded.archive.files} skipped={loaded.archive.skipped} />
        )}
      </section>
    </>
  );
}

function FileBrowser({ files, skipped }: { files: readonly TemplateFile[]; skipped: readonly string[] }) {
  const paths = files.map((file) => file.path);
  const [selected, setSelected] = useState(() => firstFile(paths));
  useEffect(() => setSelected(firstFile(files.map((file) => file.path))), [files]);
  const file = files.find((candidate) => candidate.path === selected);
  return (
    <>
      {skipped.length > 0 && (
        <p className="notice notice-warn">Not shown (links and other entries that are not files): {skipped.join(', ')}</p>
      )}
      <div className="file-browser">
        <FileTree paths={paths} selected={selected} onSelect={setSelected} />
        <div className="file-view">{file ? <FileView file={file} /> : <p className="muted">This version has no files.</p>}</div>
      </div>
    </>
  );
}

function FileView({ file }: { file: TemplateFile }) {
  const text = textOf(file.data);
  return (
    <>
      <h3 className="file-view-path">{file.path}</h3>
      {text === undefined ? (
        <p className="muted">A binary file of {file.data.length.toLocaleString()} bytes; it is not shown.</p>
      ) : (
        <CodeEditor key={file.path} path={file.path} value={text} readOnly />
      )}
    </>
  );
}
