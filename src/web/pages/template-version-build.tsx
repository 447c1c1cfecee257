// The editor's build and publish: the files packed into a tar, uploaded, imported as a new version
// of the template with its log followed live; then, once the import succeeded, that version named
// and made the active one.
import { useEffect, useState, type FormEvent } from 'react';
import type { TemplateVersion } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { BuildLog } from '../components/build-log.js';
import { ActionStatus, useAction } from '../components/feedback.js';
import { uploadTar, type LoadedVersion } from './template-version-files.js';

const FINISHED = ['succeeded', 'failed', 'canceled'];

/** A build of the edited files: the version it made, and the edit it packed. */
interface Build {
  readonly version: TemplateVersion;
  readonly revision: number;
}

export function BuildPanel({
  loaded,
  revision,
  pack,
  onPublished,
}: {
  loaded: LoadedVersion;
  /** Counts the edits so far; a build of an older count is out of date. */
  revision: number;
  /** The edited files as a tar; throws when they cannot be packed. */
  pack: () => Promise<Uint8Array>;
  onPublished: (name: string) => void;
}) {
  const [build, setBuild] = useState<Build>();
  const [state, start] = useAction(async () => {
    const tar = await pack();
    const fileId = await uploadTar(tar);
    const version = await api<TemplateVersion>('POST', `/organizations/${encodeURIComponent(loaded.organization)}/templateversions`, {
      body: { template_id: loaded.template.id, storage_method: 'file', file_id: fileId, tags: loaded.version.job.tags },
    });
    setBuild({ version, revision });
    return 'Build started.';
  });

  // The job's status, read again until it is over; the log itself streams in BuildLog.
  const buildId = build?.version.id;
  const finished = build ? FINISHED.includes(build.version.job.status) : true;
  useEffect(() => {
    if (!buildId || finished) return;
    let current = true;
    const timer = setInterval(() => {
      api<TemplateVersion>('GET', `/templateversions/${buildId}`).then(
        (version) => current && setBuild((known) => (known && known.version.id === version.id ? { ...known, version } : known)),
        () => undefined,
      );
    }, 1000);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [buildId, finished]);

  const building = state.state === 'pending' || (build !== undefined && !finished);
  const job = build?.version.job;
  return (
    <section className="card template-build" aria-labelledby="template-build-title">
      <div className="template-build-header">
        <h2 id="template-build-title">Build and publish</h2>
        <button type="button" className="button button-primary" disabled={building} onClick={() => void start()}>
          {build ? 'Build again' : 'Build'}
        </button>
      </div>
      <p className="muted">Building imports the files as a new version of the template. Publishing names it and makes it the active one.</p>
      {state.state !== 'done' && <ActionStatus state={state} pending="Uploading the files…" />}
      {build && (
        <>
          {job?.status === 'failed' && (
            <div className="notice notice-error" role="alert">
              <strong>The build failed.</strong> Change the files and build again.
              {job.error && <p className="notice-detail build-error">{job.error}</p>}
            </div>
          )}
          <BuildLog
            key={build.version.id}
            path={`/templateversions/${build.version.id}/logs`}
            job={job}
            title={`Log of ${build.version.name}`}
          />
          {job?.status === 'succeeded' &&
            (build.revision === revision ? (
              <PublishForm loaded={loaded} version={build.version} onPublished={onPublished} />
            ) : (
              <p className="notice notice-warn">The files changed after this build. Build again to publish them.</p>
            ))}
        </>
      )}
    </section>
  );
}

function PublishForm({
  loaded,
  version,
  onPublished,
}: {
  loaded: LoadedVersion;
  version: TemplateVersion;
  onPublished: (name: string) => void;
}) {
  const [name, setName] = useState(version.name);
  const [message, setMessage] = useState('');
  const [promote, setPromote] = useState(true);
  const [state, publish] = useAction(async () => {
    const named = await api<TemplateVersion>('PATCH', `/templateversions/${version.id}`, {
      body: { name: name.trim(), ...(message.trim() ? { message: message.trim() } : {}) },
    });
    if (promote) await api('PATCH', `/templates/${loaded.template.id}/versions`, { body: { id: version.id } });
    onPublished(named.name);
    return promote ? 'Published.' : 'Saved.';
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void publish();
  };
  return (
    <form className="publish-form" onSubmit={submit} aria-labelledby="publish-title">
      <h3 id="publish-title">Publish {version.name}</h3>
      <label className="field">
        <span className="field-label">Version name</span>
        <input value={name} onChange={(event) => setName(event.target.value)} required autoComplete="off" />
      </label>
      <label className="field">
        <span className="field-label">
          Message <span className="required">(optional)</span>
        </span>
        <textarea value={message} onChange={(event) => setMessage(event.target.value)} rows={3} />
      </label>
      <label className="checkbox">
        <input type="checkbox" checked={promote} onChange={(event) => setPromote(event.target.checked)} />
        Make it the template’s active version
      </label>
      <div className="publish-actions">
        <button type="submit" className="button button-primary" disabled={state.state === 'pending' || name.trim() === ''}>
          Publish
        </button>
        <ActionStatus state={state} pending="Publishing…" />
      </div>
    </form>
  );
}
