// One rich parameter of a template version as a form control, by its type and form type, with
// the checks the template declares (required, min/max, regex) said next to it.
import type { TemplateVersionParameter } from '../../sdk/wire/index.js';
import { parameterValueProblem, type ParameterRules } from '../../sdk/wire/parameter-value.js';
import { Icon } from './status.js';

/** Why a value breaks the parameter's rules (the same checks the daemon makes), or undefined when it is fine. */
export function parameterProblem(parameter: TemplateVersionParameter, value: string): string | undefined {
  const label = parameter.display_name || parameter.name;
  const empty = value === '' || (parameter.type.startsWith('list(') && value === '[]');
  if (empty) return parameter.required && parameter.type !== 'bool' ? `${label} is required.` : undefined;
  const problem = parameterValueProblem(rulesOf(parameter), value);
  return problem && `${label}: ${problem}`;
}

function rulesOf(parameter: TemplateVersionParameter): ParameterRules {
  return {
    name: parameter.name,
    type: (['string', 'number', 'bool', 'list(string)'].includes(parameter.type) ? parameter.type : 'string') as ParameterRules['type'],
    options: parameter.options,
    validation_min: parameter.validation_min ?? null,
    validation_max: parameter.validation_max ?? null,
    validation_monotonic: '',
    validation_regex: parameter.validation_regex ?? '',
    validation_error: parameter.validation_error ?? '',
  };
}

function parseList(value: string): string[] {
  try {
    const parsed = JSON.parse(value) as unknown;
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

export function ParameterField({
  parameter,
  value,
  onChange,
  problem,
  locked,
}: {
  parameter: TemplateVersionParameter;
  value: string;
  onChange: (value: string) => void;
  problem: string | undefined;
  locked: boolean;
}) {
  const id = `parameter-${parameter.name}`;
  const label = parameter.display_name || parameter.name;
  const describedBy =
    [parameter.description ? `${id}-description` : '', problem ? `${id}-problem` : ''].filter(Boolean).join(' ') || undefined;
  const header = (
    <>
      <span className="field-label">
        <Icon src={parameter.icon} size={16} /> {label}
        {parameter.required && <span className="required"> (required)</span>}
        {!parameter.mutable && <span className="muted"> · cannot be changed later</span>}
      </span>
      {parameter.description && (
        <span id={`${id}-description`} className="field-hint">
          {parameter.description_plaintext || parameter.description}
        </span>
      )}
    </>
  );
  const problemText = problem && (
    <span id={`${id}-problem`} className="field-problem" role="alert">
      {problem}
    </span>
  );

  if (parameter.type === 'bool') {
    return (
      <div className="field">
        <label className="checkbox">
          <input
            type="checkbox"
            checked={value === 'true'}
            disabled={locked}
            aria-describedby={describedBy}
            onChange={(event) => onChange(event.target.checked ? 'true' : 'false')}
          />
          {label}
        </label>
        {parameter.description && <span className="field-hint">{parameter.description_plaintext || parameter.description}</span>}
        {problemText}
      </div>
    );
  }

  if (parameter.type.startsWith('list(')) {
    const values = parseList(value);
    if (parameter.options.length > 0) {
      return (
        <fieldset className="field" aria-describedby={describedBy}>
          <legend>{header}</legend>
          {parameter.options.map((option) => (
            <label key={option.value} className="checkbox">
              <input
                type="checkbox"
                disabled={locked}
                checked={values.includes(option.value)}
                onChange={(event) =>
                  onChange(
                    JSON.stringify(event.target.checked ? [...values, option.value] : values.filter((item) => item !== option.value)),
                  )
                }
              />
              <Icon src={option.icon} size={16} /> {option.name}
            </label>
          ))}
          {problemText}
        </fieldset>
      );
    }
    return (
      <label className="field">
        {header}
        <textarea
          id={id}
          rows={3}
          disabled={locked}
          value={values.join('\n')}
          aria-describedby={describedBy}
          aria-invalid={problem ? true : undefined}
          onChange={(event) => onChange(JSON.stringify(event.target.value.split('\n').filter((line) => line.trim() !== '')))}
        />
        <span className="field-hint">One value per line.</span>
        {problemText}
      </label>
    );
  }

  if (parameter.options.length > 0) {
    if (parameter.options.length <= 6 && parameter.form_type !== 'dropdown') {
      return (
        <fieldset className="field" aria-describedby={describedBy}>
          <legend>{header}</legend>
          <div className="options">
            {parameter.options.map((option) => (
              <label key={option.value} className={value === option.value ? 'option option-selected' : 'option'}>
                <input
                  type="radio"
                  name={id}
                  value={option.value}
                  disabled={locked}
                  checked={value === option.value}
                  onChange={() => onChange(option.value)}
                />
                <Icon src={option.icon} size={20} />
                <span>
                  <span className="option-name">{option.name}</span>
                  {option.description && <span className="option-description">{option.description}</span>}
                </span>
              </label>
            ))}
          </div>
          {problemText}
        </fieldset>
      );
    }
    return (
      <label className="field">
        {header}
        <select id={id} value={value} disabled={locked} aria-describedby={describedBy} onChange={(event) => onChange(event.target.value)}>
          {!parameter.required && <option value="">—</option>}
          {parameter.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.name}
            </option>
          ))}
        </select>
        {problemText}
      </label>
    );
  }

  if (parameter.type === 'number') {
    return (
      <label className="field">
        {header}
        <input
          id={id}
          type="number"
          inputMode="numeric"
          value={value}
          disabled={locked}
          min={parameter.validation_min ?? undefined}
          max={parameter.validation_max ?? undefined}
          aria-describedby={describedBy}
          aria-invalid={problem ? true : undefined}
          onChange={(event) => onChange(event.target.value)}
        />
        {(parameter.validation_min != null || parameter.validation_max != null) && (
          <span className="field-hint">
            Between {parameter.validation_min ?? '−∞'} and {parameter.validation_max ?? '∞'}.
          </span>
        )}
        {problemText}
      </label>
    );
  }

  return (
    <label className="field">
      {header}
      {parameter.form_type === 'textarea' ? (
        <textarea
          id={id}
          rows={4}
          value={value}
          disabled={locked}
          aria-describedby={describedBy}
          aria-invalid={problem ? true : undefined}
          onChange={(event) => onChange(event.target.value)}
        />
      ) : (
        <input
          id={id}
          value={value}
          disabled={locked}
          aria-describedby={describedBy}
          aria-invalid={problem ? true : undefined}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
      {problemText}
    </label>
  );
}
