// The rich parameters of a workspace's latest build, against its template version's definitions:
// the immutable ones shown as they are, the mutable ones editable. "Update" starts a build with
// the new values, which is how a workspace takes them on.
import { useMemo, useState, type FormEvent } from 'react';
import type { TemplateVersionParameter, Workspace, WorkspaceBuild } from '../../sdk/wire/index.js';
import { api, untilStatus } from '../api.js';
import { ErrorMessage, Loading, useAction, useLoad } from '../components/feedback.js';
import { ParameterField, parameterProblem } from '../components/parameter-field.js';
import { Link } from '../router.js';
import { isTransitioning } from '../workspace-actions.js';

export interface NameValue {
  readonly name: string;
  readonly value: string;
}

/**
 * Builds the workspace again with new values or a new version: a running workspace stops first
 * (its resources are made anew from the new inputs), then starts. Returns the start build.
 */
export async function rebuildWith(
  workspace: Workspace,
  request: { readonly template_version_id?: string; readonly rich_parameter_values: readonly NameValue[] },
): Promise<WorkspaceBuild> {
  if (workspace.latest_build.status === 'running') {
    await api<WorkspaceBuild>('POST', `/workspaces/${workspace.id}/builds`, { body: { transition: 'stop' } });
    await untilStatus(workspace.id, ['stopped']);
  }
  return api<WorkspaceBuild>('POST', `/workspaces/${workspace.id}/builds`, { body: { transition: 'start', ...request } });
}

/** Parameters in the template's order. */
export function ordered(parameters: readonly TemplateVersionParameter[]): TemplateVersionParameter[] {
  return [...parameters].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
}

/** Each problem of the values, by parameter name (undefined when the value is fine). */
export function problemsOf(parameters: readonly TemplateVersionParameter[], values: Readonly<Record<string, string>>) {
  return Object.fromEntries(parameters.map((parameter) => [parameter.name, parameterProblem(parameter, values[parameter.name] ?? '')]));
}

/** The fields of some parameters; `locked` ones are shown but cannot be edited. */
export function ParameterFields({
  parameters,
  values,
  setValues,
  locked,
  showProblems,
}: {
  parameters: readonly TemplateVersionParameter[];
  values: Readonly<Record<string, string>>;
  setValues: (update: (current: Record<string, string>) => Record<string, string>) => void;
  locked: (parameter: TemplateVersionParameter) => boolean;
  showProblems: boolean;
}) {
  const problems = problemsOf(parameters, values);
  return (
    <>
      {parameters.map((parameter) => (
        <ParameterField
          key={parameter.name}
          parameter={parameter}
          value={values[parameter.name] ?? ''}
          locked={locked(parameter)}
          problem={showProblems ? problems[parameter.name] : undefined}
          onChange={(value) => setValues((current) => ({ ...current, [parameter.name]: value }))}
        />
      ))}
    </>
  );
}

export function ParameterSettings({ workspace }: { workspace: Workspace }) {
  const build = workspace.latest_build;
  const loaded = useLoad(
    () =>
      Promise.all([
        api<NameValue[]>('GET', `/workspacebuilds/${build.id}/parameters`),
        api<TemplateVersionParameter[]>('GET', `/templateversions/${build.template_version_id}/rich-parameters`),
      ]),
    [build.id, build.template_version_id],
  );
  if (!loaded.data) return <Loading error={loaded.error}>Loading the parameters…</Loading>;
  const [current, definitions] = loaded.data;
  // Kept across the builds an update starts (a stop, then a start), which would otherwise reset the form mid-way.
  return <ParameterForm workspace={workspace} current={current} definitions={definitions} />;
}

function ParameterForm({
  workspace,
  current,
  definitions,
}: {
  workspace: Workspace;
  current: readonly NameValue[];
  definitions: readonly TemplateVersionParameter[];
}) {
  const parameters = useMemo(() => ordered(definitions), [definitions]);
  const initial = useMemo(
    () =>
      Object.fromEntries(
        parameters.map((parameter) => [
          parameter.name,
          // Ephemeral values hold for one build only: they start at their default every time.
          (!parameter.ephemeral && current.find((value) => value.name === parameter.name)?.value) || parameter.default_value,
        ]),
      ),
    [parameters, current],
  );
  const [values, setValues] = useState<Record<string, string>>(initial);
  const [touched, setTouched] = useState(false);
  const editable = parameters.filter((parameter) => parameter.mutable);
  const problems = problemsOf(editable, values);
  const valid = Object.values(problems).every((problem) => problem === undefined);
  const changed = editable.some((parameter) => values[parameter.name] !== initial[parameter.name]);

  const [update, startUpdate] = useAction(async () => {
    const started = await rebuildWith(workspace, {
      rich_parameter_values: editable.map((parameter) => ({ name: parameter.name, value: values[parameter.name] ?? '' })),
    });
    return `Build #${started.build_number} started with the new values.`;
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (valid) void startUpdate();
  };

  const base = `/@${encodeURIComponent(workspace.owner_name)}/${encodeURIComponent(workspace.name)}`;
  return (
    <form className="form card" onSubmit={onSubmit} aria-labelledby="parameters-title" noValidate>
      <h2 id="parameters-title">Parameters</h2>
      {parameters.length === 0 ? (
        <p className="muted">This workspace’s template version has no parameters.</p>
      ) : (
        <>
          <p className="muted settings-summary">
            The values of build #{workspace.latest_build.build_number} ({workspace.latest_build.template_version_name}). Changing one starts
            a new build. Values marked “cannot be changed later” are fixed for the life of the workspace.
          </p>
          <ParameterFields
            parameters={parameters}
            values={values}
            setValues={setValues}
            locked={(parameter) => !parameter.mutable}
            showProblems={touched}
          />
          <div className="form-actions">
            <button
              type="submit"
              className="button button-primary"
              disabled={update.state === 'pending' || !changed || isTransitioning(workspace)}
            >
              Update
            </button>
            {update.state === 'done' && (
              <span className="action-status action-done" role="status">
                {update.message} <Link href={base}>Follow it on the workspace page</Link>
              </span>
            )}
            {update.state === 'pending' && (
              <span className="action-status" role="status">
                <span className="spinner" aria-hidden="true" /> Starting a build…
              </span>
            )}
          </div>
          {touched && !valid && (
            <p className="field-problem" role="alert">
              Fix the fields marked above.
            </p>
          )}
          {update.state === 'error' && <ErrorMessage error={update.error} />}
        </>
      )}
    </form>
  );
}
