// Which template version a workspace builds from: the one it has against the template's active
// one, and a change to any version that imported well. A version that asks for required
// parameters the workspace never had a value for prompts for them before the build starts.
import { useState, type FormEvent } from 'react';
import type { TemplateVersion, TemplateVersionParameter, Workspace } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ErrorMessage, Loading, useAction, useLoad } from '../components/feedback.js';
import { Link } from '../router.js';
import { isTransitioning } from '../workspace-actions.js';
import { ordered, ParameterFields, problemsOf, rebuildWith, type NameValue } from './workspace-settings-parameters.js';

/** The parameters of a version the workspace has no value for and that demand one. */
async function missingParameters(workspace: Workspace, versionId: string): Promise<TemplateVersionParameter[]> {
  const [definitions, current] = await Promise.all([
    api<TemplateVersionParameter[]>('GET', `/templateversions/${versionId}/rich-parameters`),
    api<NameValue[]>('GET', `/workspacebuilds/${workspace.latest_build.id}/parameters`),
  ]);
  const known = new Set(current.map((value) => value.name));
  return ordered(definitions.filter((parameter) => parameter.required && !parameter.ephemeral && !known.has(parameter.name)));
}

export function VersionSettings({ workspace }: { workspace: Workspace }) {
  const versions = useLoad(
    () => api<TemplateVersion[]>('GET', `/templates/${workspace.template_id}/versions`),
    [workspace.template_id, workspace.template_active_version_id],
  );
  if (!versions.data) return <Loading error={versions.error}>Loading the template’s versions…</Loading>;
  return <VersionForm workspace={workspace} versions={versions.data} />;
}

function VersionForm({ workspace, versions }: { workspace: Workspace; versions: readonly TemplateVersion[] }) {
  const build = workspace.latest_build;
  const usable = versions.filter((version) => version.job.status === 'succeeded' && !version.archived);
  const active = versions.find((version) => version.id === workspace.template_active_version_id);
  const [chosen, setChosen] = useState(
    build.template_version_id === workspace.template_active_version_id ? build.template_version_id : workspace.template_active_version_id,
  );
  // The parameters the chosen version still needs, once asked for; reset when another version is picked.
  const [prompt, setPrompt] = useState<{ versionId: string; parameters: TemplateVersionParameter[] }>();
  const [values, setValues] = useState<Record<string, string>>({});
  const [touched, setTouched] = useState(false);
  const promptProblems = prompt ? problemsOf(prompt.parameters, values) : {};
  const promptValid = Object.values(promptProblems).every((problem) => problem === undefined);

  const [change, startChange] = useAction(async (versionId: string) => {
    const target = usable.find((version) => version.id === versionId);
    if (!prompt || prompt.versionId !== versionId) {
      const missing = await missingParameters(workspace, versionId);
      if (missing.length > 0) {
        setPrompt({ versionId, parameters: missing });
        setValues(Object.fromEntries(missing.map((parameter) => [parameter.name, parameter.default_value])));
        setTouched(false);
        return `Version ${target?.name ?? ''} needs the values below before it can build.`;
      }
    }
    const given =
      prompt?.versionId === versionId
        ? prompt.parameters.map((parameter) => ({ name: parameter.name, value: values[parameter.name] ?? '' }))
        : [];
    const started = await rebuildWith(workspace, { template_version_id: versionId, rich_parameter_values: given });
    setPrompt(undefined);
    return `Build #${started.build_number} started on version ${target?.name ?? versionId}.`;
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (!prompt || promptValid) void startChange(chosen);
  };
  const choose = (versionId: string) => {
    setChosen(versionId);
    if (prompt && prompt.versionId !== versionId) setPrompt(undefined);
  };

  const base = `/@${encodeURIComponent(workspace.owner_name)}/${encodeURIComponent(workspace.name)}`;
  const busy = change.state === 'pending' || isTransitioning(workspace);
  return (
    <form className="form card" onSubmit={onSubmit} aria-labelledby="version-title" noValidate>
      <h2 id="version-title">Version</h2>
      <dl className="version-compare">
        <dt>This workspace</dt>
        <dd data-version="current">
          {build.template_version_name}
          {workspace.outdated ? (
            <>
              {' '}
              <span className="badge badge-warn">outdated</span>
            </>
          ) : (
            ' (the active version)'
          )}
        </dd>
        <dt>Template’s active</dt>
        <dd data-version="active">{active?.name ?? workspace.template_active_version_id}</dd>
      </dl>
      {workspace.template_require_active_version && (
        <p className="field-hint">The template requires workspaces to run its active version; other versions may be refused.</p>
      )}
      <label className="field">
        <span className="field-label">Build from version</span>
        <select value={chosen} onChange={(event) => choose(event.target.value)}>
          {usable.map((version) => (
            <option key={version.id} value={version.id}>
              {version.name}
              {version.id === workspace.template_active_version_id ? ' (active)' : ''}
              {version.id === build.template_version_id ? ' (current)' : ''}
            </option>
          ))}
        </select>
        <span className="field-hint">
          {workspace.latest_build.status === 'running'
            ? 'The workspace stops, then starts again from the chosen version.'
            : 'The workspace starts from the chosen version.'}
        </span>
      </label>
      {prompt && prompt.versionId === chosen && (
        <>
          <h3 className="form-section">New parameters</h3>
          <ParameterFields
            parameters={prompt.parameters}
            values={values}
            setValues={setValues}
            locked={() => false}
            showProblems={touched}
          />
        </>
      )}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={busy || chosen === build.template_version_id}>
          {prompt && prompt.versionId === chosen ? 'Build with these values' : 'Change version'}
        </button>
        {change.state === 'pending' && (
          <span className="action-status" role="status">
            <span className="spinner" aria-hidden="true" /> Working…
          </span>
        )}
        {change.state === 'done' && (
          <span className="action-status action-done" role="status">
            {change.message} {!prompt && <Link href={base}>Follow it on the workspace page</Link>}
          </span>
        )}
      </div>
      {change.state === 'error' && <ErrorMessage error={change.error} />}
    </form>
  );
}
