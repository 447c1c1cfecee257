// A new template, from a built-in example or an uploaded archive: the source is imported as a
// first version (its log shown live), then the template is made from it.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { ProvisionerJob, Template, TemplateExample, TemplateVersion } from '../../sdk/wire/index.js';
import { api, ApiError, uploadArchive } from '../api.js';
import { BuildLog } from '../components/build-log.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { Icon } from '../components/status.js';
import { templatePath, useOrganization } from '../components/template-frame.js';
import { Link, navigate } from '../router.js';

type Source = 'example' | 'upload';

const JOB_OVER: readonly string[] = ['succeeded', 'failed', 'canceled'];
/** How often the import's status is read while its log streams. */
const POLL_MS = 1_000;

export function TemplateCreatePage() {
  const organization = useOrganization();
  const examples = useLoad(
    () => api<TemplateExample[]>('GET', `/organizations/${encodeURIComponent(organization)}/templates/examples`),
    [organization],
  );
  const [source, setSource] = useState<Source>('example');
  const [exampleId, setExampleId] = useState<string>();
  const [file, setFile] = useState<File>();
  const [form, setForm] = useState({ name: '', display_name: '', description: '', icon: '' });
  const set = (key: keyof typeof form, value: string) => setForm((current) => ({ ...current, [key]: value }));
  const [version, setVersion] = useState<TemplateVersion>();
  // The version imported from the source as it is now; a second try (a better name) reuses it.
  const imported = useRef<{ key: string; version: TemplateVersion } | undefined>(undefined);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );

  const example = examples.data?.find((candidate) => candidate.id === exampleId);
  const chooseExample = (chosen: TemplateExample) => {
    setExampleId(chosen.id);
    // The example's own name and icon, unless the user typed their own.
    setForm((current) => ({
      ...current,
      name: current.name === '' || current.name === example?.id ? chosen.id : current.name,
      icon: current.icon === '' || current.icon === example?.icon ? chosen.icon : current.icon,
    }));
  };

  /** Imports the chosen source as a version and waits for the import to end. */
  const importSource = async (): Promise<TemplateVersion> => {
    const key =
      source === 'example' ? `example:${exampleId ?? ''}` : `file:${file?.name ?? ''}:${file?.size ?? 0}:${file?.lastModified ?? 0}`;
    if (imported.current?.key === key) return imported.current.version;
    let body: { example_id: string } | { file_id: string };
    if (source === 'example') {
      if (!exampleId) throw new ApiError(400, { message: 'Choose an example.' });
      body = { example_id: exampleId };
    } else {
      if (!file) throw new ApiError(400, { message: 'Choose a .tar or .zip archive of the template’s files.' });
      body = { file_id: await uploadArchive(file) };
    }
    let current = await api<TemplateVersion>('POST', `/organizations/${encodeURIComponent(organization)}/templateversions`, { body });
    setVersion(current);
    while (!JOB_OVER.includes(current.job.status)) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (!mounted.current) throw new ApiError(0, { message: 'Left the page.' });
      current = await api<TemplateVersion>('GET', `/templateversions/${current.id}`);
      setVersion(current);
    }
    if (current.job.status !== 'succeeded')
      throw new ApiError(0, {
        message: current.job.status === 'canceled' ? 'The import was canceled.' : 'The import failed: see its log below.',
        detail: current.job.error ?? '',
      });
    imported.current = { key, version: current };
    return current;
  };

  const [state, create] = useAction(async () => {
    const ready = await importSource();
    const template = await api<Template>('POST', `/organizations/${encodeURIComponent(organization)}/templates`, {
      body: {
        name: form.name.trim(),
        display_name: form.display_name,
        description: form.description,
        icon: form.icon.trim(),
        template_version_id: ready.id,
      },
    });
    navigate(templatePath(template.name));
  });
  const busy = state.state === 'pending';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void create();
  };

  return (
    <section className="page page-narrow">
      <p className="breadcrumb">
        <Link href="/templates">Templates</Link> / New
      </p>
      <h1>New template</h1>
      <form className="form card" onSubmit={submit} aria-label="New template">
        <fieldset className="field">
          <legend>
            <span className="field-label">Start from</span>
          </legend>
          <div className="options">
            <label className={source === 'example' ? 'option option-selected' : 'option'}>
              <input type="radio" name="source" checked={source === 'example'} onChange={() => setSource('example')} />
              <span>
                <span className="option-name">A built-in example</span>
                <span className="option-description">Ready to use; change it later.</span>
              </span>
            </label>
            <label className={source === 'upload' ? 'option option-selected' : 'option'}>
              <input type="radio" name="source" checked={source === 'upload'} onChange={() => setSource('upload')} />
              <span>
                <span className="option-name">An archive you upload</span>
                <span className="option-description">A .tar or .zip of the template’s directory.</span>
              </span>
            </label>
          </div>
        </fieldset>

        {source === 'example' ? (
          <fieldset className="field">
            <legend>
              <span className="field-label">Example</span>
            </legend>
            {!examples.data ? (
              <Loading error={examples.error} />
            ) : (
              <div className="options template-examples">
                {examples.data.map((candidate) => (
                  <label key={candidate.id} className={candidate.id === exampleId ? 'option option-selected' : 'option'}>
                    <input
                      type="radio"
                      name="example"
                      value={candidate.id}
                      checked={candidate.id === exampleId}
                      onChange={() => chooseExample(candidate)}
                    />
                    <Icon src={candidate.icon} size={24} />
                    <span>
                      <span className="option-name">{candidate.name}</span>
                      <span className="option-description">{candidate.description}</span>
                    </span>
                  </label>
                ))}
              </div>
            )}
          </fieldset>
        ) : (
          <label className="field">
            <span className="field-label">Archive</span>
            <input
              type="file"
              accept=".tar,.zip,application/x-tar,application/zip"
              onChange={(event) => setFile(event.target.files?.[0] ?? undefined)}
            />
            <span className="field-hint">Files at the top of the archive, as the template’s directory holds them.</span>
          </label>
        )}

        <label className="field">
          <span className="field-label">
            Name <span className="required">(required)</span>
          </span>
          <input value={form.name} onChange={(event) => set('name', event.target.value)} required autoComplete="off" />
          <span className="field-hint">Lowercase letters, digits and dashes; part of its address.</span>
        </label>
        <label className="field">
          <span className="field-label">Display name</span>
          <input value={form.display_name} onChange={(event) => set('display_name', event.target.value)} autoComplete="off" />
        </label>
        <label className="field">
          <span className="field-label">Description</span>
          <textarea value={form.description} maxLength={128} rows={2} onChange={(event) => set('description', event.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Icon</span>
          <input value={form.icon} onChange={(event) => set('icon', event.target.value)} autoComplete="off" />
        </label>
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={busy}>
            Create template
          </button>
          <ActionStatus
            state={state}
            pending={
              version && !JOB_OVER.includes(version.job.status)
                ? 'Importing…'
                : version
                  ? 'Creating…'
                  : source === 'upload'
                    ? 'Uploading…'
                    : 'Starting the import…'
            }
          />
        </div>
      </form>
      {version && <ImportLog version={version} />}
    </section>
  );
}

function ImportLog({ version }: { version: TemplateVersion }) {
  const job: ProvisionerJob = version.job;
  return <BuildLog key={version.id} path={`/templateversions/${version.id}/logs`} job={job} title={`Import of ${version.name}`} />;
}
