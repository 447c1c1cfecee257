// Creating a workspace: template and version, a name, the version's rich parameters (or a
// preset of them), then the new workspace's page with its first build's log live.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { Template, TemplateVersion, TemplateVersionParameter, TemplateVersionPreset, Workspace } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ExternalAuthRequirements } from '../components/external-auth-requirements.js';
import { ErrorMessage, Loading, useAction, useLoad } from '../components/feedback.js';
import { ParameterField, parameterProblem } from '../components/parameter-field.js';
import { CreationCost } from '../components/quota.js';
import { Icon } from '../components/status.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';

const NAME_PATTERN = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/;

export function CreateWorkspacePage({ template: templateName }: { template: string | undefined }) {
  const templates = useLoad(() => api<Template[]>('GET', '/templates'), []);
  const template = templates.data?.find((candidate) => candidate.name === templateName);

  if (!templates.data) return <Loading error={templates.error} />;
  if (templates.data.length === 0) {
    return (
      <section className="page page-narrow">
        <h1>New workspace</h1>
        <div className="empty">
          <p>There are no templates yet. A template describes what a workspace is made of.</p>
          <Link href="/templates" className="button">
            See how to add one
          </Link>
        </div>
      </section>
    );
  }
  return (
    <section className="page page-narrow">
      <h1>New workspace</h1>
      <label className="field">
        <span className="field-label">Template</span>
        <select
          value={template?.name ?? ''}
          onChange={(event) => navigate(`/templates/${encodeURIComponent(event.target.value)}/workspace`, { replace: true })}
        >
          <option value="" disabled>
            Choose a template…
          </option>
          {templates.data.map((candidate) => (
            <option key={candidate.id} value={candidate.name}>
              {candidate.display_name || candidate.name}
            </option>
          ))}
        </select>
      </label>
      {templateName && !template && <ErrorMessage error={new Error(`There is no template named "${templateName}".`)} />}
      {template && <CreateForm key={template.id} template={template} />}
    </section>
  );
}

function CreateForm({ template }: { template: Template }) {
  const { user } = useSession();
  const versions = useLoad(() => api<TemplateVersion[]>('GET', `/templates/${template.id}/versions`), [template.id]);
  const [versionId, setVersionId] = useState(template.active_version_id);
  const details = useLoad(
    () =>
      Promise.all([
        api<TemplateVersionParameter[]>('GET', `/templateversions/${versionId}/rich-parameters`),
        api<TemplateVersionPreset[]>('GET', `/templateversions/${versionId}/presets`),
      ]),
    [versionId],
  );
  const [parameters, presets] = details.data ?? [[], []];
  const [presetId, setPresetId] = useState<string>('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  // Why the version's required external auth keeps Create disabled, until every one is linked.
  const [unlinked, setUnlinked] = useState<string | undefined>('Checking which accounts the template needs…');

  // A new version's parameters start at their defaults, with the default preset applied.
  useEffect(() => {
    if (!details.data) return;
    const [loadedParameters, loadedPresets] = details.data;
    const defaults = Object.fromEntries(loadedParameters.map((parameter) => [parameter.name, parameter.default_value]));
    const preset = loadedPresets.find((candidate) => candidate.Default);
    setPresetId(preset?.ID ?? '');
    setValues({ ...defaults, ...Object.fromEntries((preset?.Parameters ?? []).map((value) => [value.Name, value.Value])) });
  }, [details.data]);

  const preset = presets.find((candidate) => candidate.ID === presetId);
  const presetNames = new Set((preset?.Parameters ?? []).map((value) => value.Name));
  const ordered = useMemo(() => [...parameters].sort((a, b) => (a.order ?? 0) - (b.order ?? 0)), [parameters]);
  const problems = Object.fromEntries(
    ordered.map((parameter) => [parameter.name, parameterProblem(parameter, values[parameter.name] ?? '')]),
  );
  const nameProblem =
    name === ''
      ? 'A name is required.'
      : !NAME_PATTERN.test(name) || name.length > 32
        ? 'Use up to 32 letters, digits and single dashes.'
        : undefined;
  const valid = !nameProblem && Object.values(problems).every((problem) => problem === undefined);

  const choosePreset = (id: string) => {
    setPresetId(id);
    const chosen = presets.find((candidate) => candidate.ID === id);
    if (chosen)
      setValues((current) => ({ ...current, ...Object.fromEntries(chosen.Parameters.map((value) => [value.Name, value.Value])) }));
  };

  const [state, create] = useAction(async () => {
    const workspace = await api<Workspace>('POST', '/users/me/workspaces', {
      body: {
        name,
        template_version_id: versionId,
        ...(presetId ? { template_version_preset_id: presetId } : {}),
        rich_parameter_values: ordered.map((parameter) => ({ name: parameter.name, value: values[parameter.name] ?? '' })),
      },
    });
    navigate(`/@${workspace.owner_name}/${workspace.name}`);
    return `Created ${workspace.name}.`;
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (valid) void create();
  };

  return (
    <form className="form card" onSubmit={onSubmit} aria-label="Create workspace" noValidate>
      <div className="template-summary">
        <Icon src={template.icon} size={32} />
        <div>
          <strong>{template.display_name || template.name}</strong>
          {template.description && <p className="muted">{template.description}</p>}
        </div>
      </div>
      <label className="field">
        <span className="field-label">Workspace name</span>
        <input
          name="name"
          value={name}
          autoComplete="off"
          required
          aria-invalid={touched && nameProblem ? true : undefined}
          aria-describedby="name-hint"
          onChange={(event) => setName(event.target.value)}
        />
        <span id="name-hint" className={touched && nameProblem ? 'field-problem' : 'field-hint'}>
          {touched && nameProblem ? nameProblem : `It will be at /@${user.username}/${name || 'name'}.`}
        </span>
      </label>
      <label className="field">
        <span className="field-label">Version</span>
        <select value={versionId} onChange={(event) => setVersionId(event.target.value)} disabled={!versions.data}>
          {(versions.data ?? [])
            .filter((version) => version.job.status === 'succeeded')
            .map((version) => (
              <option key={version.id} value={version.id}>
                {version.name}
                {version.id === template.active_version_id ? ' (active)' : ''}
              </option>
            ))}
          {!versions.data && <option value={versionId}>Active version</option>}
        </select>
      </label>
      {!details.data ? (
        <Loading error={details.error}>Loading the version’s parameters…</Loading>
      ) : (
        <>
          {presets.length > 0 && (
            <label className="field">
              <span className="field-label">Preset</span>
              <select value={presetId} onChange={(event) => choosePreset(event.target.value)}>
                <option value="">None: set every parameter</option>
                {presets.map((candidate) => (
                  <option key={candidate.ID} value={candidate.ID}>
                    {candidate.Name}
                    {candidate.Default ? ' (default)' : ''}
                  </option>
                ))}
              </select>
              <span className="field-hint">A preset fills in some parameters for you.</span>
            </label>
          )}
          {ordered.length > 0 && <h2 className="form-section">Parameters</h2>}
          {ordered.map((parameter) => (
            <ParameterField
              key={parameter.name}
              parameter={parameter}
              value={values[parameter.name] ?? ''}
              locked={presetNames.has(parameter.name)}
              problem={touched ? problems[parameter.name] : undefined}
              onChange={(value) => setValues((current) => ({ ...current, [parameter.name]: value }))}
            />
          ))}
        </>
      )}
      <ExternalAuthRequirements key={versionId} versionId={versionId} onBlocking={setUnlinked} />
      <CreationCost organizationId={template.organization_id} versionId={versionId} />
      <div className="form-actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={state.state === 'pending' || !details.data || unlinked !== undefined}
          aria-describedby={unlinked ? 'create-blocked' : undefined}
        >
          {state.state === 'pending' ? 'Creating…' : 'Create workspace'}
        </button>
        <Link href="/workspaces" className="button button-quiet">
          Cancel
        </Link>
      </div>
      {unlinked && (
        <p id="create-blocked" className="field-hint">
          {unlinked}
        </p>
      )}
      {touched && !valid && (
        <p className="field-problem" role="alert">
          Fix the fields marked above.
        </p>
      )}
      {state.state === 'error' && <ErrorMessage error={state.error} />}
    </form>
  );
}
