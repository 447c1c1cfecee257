// A template's settings: what it is called and shows, how its workspaces are scheduled, what their
// owners may change, whether it is deprecated; and deleting it.
import { useState, type FormEvent } from 'react';
import type { Template, UpdateTemplateMeta } from '../../sdk/wire/index.js';
import { api, ApiError } from '../api.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ActionStatus, useAction } from '../components/feedback.js';
import { Icon } from '../components/status.js';
import { TemplateFrame, TemplateLoading, templatePath, useTemplate } from '../components/template-frame.js';
import { navigate } from '../router.js';

const HOUR_MS = 3_600_000;
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

export function TemplateSettingsPage({ name }: { name: string }) {
  const { data, error, setData } = useTemplate(name);
  if (!data) return <TemplateLoading name={name} error={error} />;
  return (
    <TemplateFrame template={data}>
      <SettingsForm template={data} onSaved={setData} />
      <DeleteTemplate template={data} />
    </TemplateFrame>
  );
}

/** Hours as the form shows them: whole where they are whole, else to two places. */
function hours(ms: number): string {
  return String(Math.round((ms / HOUR_MS) * 100) / 100);
}

function SettingsForm({ template, onSaved }: { template: Template; onSaved: (template: Template) => void }) {
  const [form, setForm] = useState({
    name: template.name,
    display_name: template.display_name,
    description: template.description,
    icon: template.icon,
    default_ttl: hours(template.default_ttl_ms),
    activity_bump: hours(template.activity_bump_ms),
    autostop_days: template.autostop_requirement.days_of_week as readonly string[],
    autostop_weeks: String(template.autostop_requirement.weeks),
    allow_user_cancel_workspace_jobs: template.allow_user_cancel_workspace_jobs,
    allow_user_autostart: template.allow_user_autostart,
    allow_user_autostop: template.allow_user_autostop,
    deprecation_message: template.deprecation_message,
  });
  const set = <K extends keyof typeof form>(key: K, value: (typeof form)[K]) => setForm((current) => ({ ...current, [key]: value }));
  const notInEffect = new Set(template.settings_not_in_effect);

  const [state, save] = useAction(async () => {
    const body: UpdateTemplateMeta = {
      name: form.name.trim(),
      display_name: form.display_name,
      description: form.description,
      icon: form.icon.trim(),
      default_ttl_ms: Math.round(Number(form.default_ttl) * HOUR_MS),
      activity_bump_ms: Math.round(Number(form.activity_bump) * HOUR_MS),
      autostop_requirement: { days_of_week: [...form.autostop_days], weeks: Number(form.autostop_weeks) },
      allow_user_cancel_workspace_jobs: form.allow_user_cancel_workspace_jobs,
      allow_user_autostart: form.allow_user_autostart,
      allow_user_autostop: form.allow_user_autostop,
      deprecation_message: form.deprecation_message,
    };
    for (const [field, text] of [
      ['default_ttl_ms', form.default_ttl],
      ['activity_bump_ms', form.activity_bump],
      ['autostop_requirement.weeks', form.autostop_weeks],
    ] as const) {
      if (text.trim() === '' || !Number.isFinite(Number(text)) || Number(text) < 0)
        throw new ApiError(400, { message: 'Check the form.', validations: [{ field, detail: 'must be a number, 0 or more' }] });
    }
    let updated: Template | undefined;
    try {
      updated = await api<Template>('PATCH', `/templates/${template.id}`, { body });
    } catch (error) {
      // 304: the server had every value already.
      if (error instanceof ApiError && error.status === 304) return 'Nothing changed.';
      throw error;
    }
    if (!updated) return 'Nothing changed.';
    onSaved(updated);
    if (updated.name !== template.name) navigate(templatePath(updated.name, 'settings'), { replace: true });
    return 'Saved.';
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save();
  };
  const scheduleNote = (field: string) =>
    notInEffect.has(field) ? <p className="field-hint">Stored, but not in effect: this deployment is not entitled to it.</p> : null;

  return (
    <form className="card form template-settings" onSubmit={submit} aria-labelledby="general-title">
      <h2 id="general-title">General</h2>
      <label className="field">
        <span className="field-label">Name</span>
        <input value={form.name} onChange={(event) => set('name', event.target.value)} required autoComplete="off" />
        <span className="field-hint">Part of its address and of the CLI commands. Renaming changes both.</span>
      </label>
      <label className="field">
        <span className="field-label">Display name</span>
        <input value={form.display_name} onChange={(event) => set('display_name', event.target.value)} autoComplete="off" />
      </label>
      <label className="field">
        <span className="field-label">Description</span>
        <textarea value={form.description} maxLength={128} rows={2} onChange={(event) => set('description', event.target.value)} />
        <span className="field-hint">At most 128 characters.</span>
      </label>
      <div className="template-icon-field">
        <label className="field">
          <span className="field-label">Icon</span>
          <input
            value={form.icon}
            onChange={(event) => set('icon', event.target.value)}
            placeholder="/icon/docker.svg or https://…"
            autoComplete="off"
          />
          <span className="field-hint">A path on this server or a URL.</span>
        </label>
        <div className="template-icon-preview" aria-label="Icon preview" role="img">
          {form.icon.trim() ? <Icon src={form.icon.trim()} size={40} /> : <span className="muted">None</span>}
        </div>
      </div>

      <h2 className="form-section">Schedule</h2>
      <label className="field">
        <span className="field-label">Default autostop (hours)</span>
        <input inputMode="decimal" value={form.default_ttl} onChange={(event) => set('default_ttl', event.target.value)} />
        <span className="field-hint">How long a workspace runs after it starts; 0 for no limit.</span>
        {scheduleNote('default_ttl_ms')}
      </label>
      <label className="field">
        <span className="field-label">Activity bump (hours)</span>
        <input inputMode="decimal" value={form.activity_bump} onChange={(event) => set('activity_bump', event.target.value)} />
        <span className="field-hint">How far use of a workspace pushes its stop out; 0 for not at all.</span>
        {scheduleNote('activity_bump_ms')}
      </label>
      <fieldset className="field">
        <legend>
          <span className="field-label">Autostop requirement</span>
          <span className="field-hint">Days on which workspaces must stop (in their owner’s quiet hours).</span>
        </legend>
        <div className="template-weekdays">
          {WEEKDAYS.map((day) => (
            <label key={day} className="checkbox">
              <input
                type="checkbox"
                checked={form.autostop_days.includes(day)}
                onChange={(event) =>
                  set(
                    'autostop_days',
                    event.target.checked ? [...form.autostop_days, day] : form.autostop_days.filter((chosen) => chosen !== day),
                  )
                }
              />
              {day[0]!.toUpperCase() + day.slice(1)}
            </label>
          ))}
        </div>
        {scheduleNote('autostop_requirement')}
      </fieldset>
      <label className="field">
        <span className="field-label">Autostop requirement, every … weeks</span>
        <input inputMode="numeric" value={form.autostop_weeks} onChange={(event) => set('autostop_weeks', event.target.value)} />
      </label>

      <h2 className="form-section">What workspace owners may do</h2>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={form.allow_user_cancel_workspace_jobs}
          onChange={(event) => set('allow_user_cancel_workspace_jobs', event.target.checked)}
        />
        Cancel their workspaces’ builds
      </label>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={form.allow_user_autostart}
          onChange={(event) => set('allow_user_autostart', event.target.checked)}
        />
        Set their own autostart schedule
      </label>
      {scheduleNote('allow_user_autostart')}
      <label className="checkbox">
        <input type="checkbox" checked={form.allow_user_autostop} onChange={(event) => set('allow_user_autostop', event.target.checked)} />
        Set their own autostop
      </label>
      {scheduleNote('allow_user_autostop')}

      <h2 className="form-section">Deprecation</h2>
      <label className="field">
        <span className="field-label">Deprecation message</span>
        <textarea value={form.deprecation_message} rows={2} onChange={(event) => set('deprecation_message', event.target.value)} />
        <span className="field-hint">A message deprecates the template: no new workspaces start from it. Empty it to undo.</span>
      </label>

      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={state.state === 'pending'}>
          Save settings
        </button>
        <ActionStatus state={state} pending="Saving…" />
      </div>
    </form>
  );
}

function DeleteTemplate({ template }: { template: Template }) {
  const [state, remove] = useAction(async () => {
    await api('DELETE', `/templates/${template.id}`);
    navigate('/templates');
  });
  return (
    <section className="card template-danger" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete this template</h2>
      <p className="muted">Only a template that no workspace uses can be deleted. This cannot be undone.</p>
      <div className="form-actions">
        <ConfirmButton
          label="Delete template"
          question={`Delete ${template.name}?`}
          confirmLabel="Yes, delete it"
          onConfirm={() => void remove()}
          disabled={state.state === 'pending'}
          danger
        />
      </div>
      <ActionStatus state={state} pending="Deleting…" />
    </section>
  );
}
