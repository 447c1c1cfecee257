// When a workspace starts and stops on its own. Autostart is a weekly schedule the API takes as
// a cron line (`CRON_TZ=<zone> <minute> <hour> * * <days>`), set here as days, a time and a time
// zone; autostop is a number of hours after the last use. What the template forbids (autostart at
// all, on some days, or a custom autostop) is shown and left unchangeable.
import { useMemo, useState, type FormEvent } from 'react';
import type { Template, Workspace } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { formatDuration, Time } from '../components/status.js';

/** Days in the order a week is read, with cron's numbers (Sunday is 0). */
const DAYS = [
  { number: 1, name: 'monday', label: 'Monday' },
  { number: 2, name: 'tuesday', label: 'Tuesday' },
  { number: 3, name: 'wednesday', label: 'Wednesday' },
  { number: 4, name: 'thursday', label: 'Thursday' },
  { number: 5, name: 'friday', label: 'Friday' },
  { number: 6, name: 'saturday', label: 'Saturday' },
  { number: 0, name: 'sunday', label: 'Sunday' },
] as const;

export interface WeeklySchedule {
  readonly days: readonly number[];
  /** `HH:MM`, 24 hours. */
  readonly time: string;
  readonly timezone: string;
}

/** A weekly cron line as days, time and zone; undefined for a line this form cannot show (steps, several times). */
export function parseAutostart(cron: string): WeeklySchedule | undefined {
  const match = /^(?:CRON_TZ=(\S+)\s+)?(\d{1,2})\s+(\d{1,2})\s+\*\s+\*\s+(\S+)$/.exec(cron.trim());
  if (!match) return undefined;
  const [, timezone = 'UTC', minute = '', hour = '', field = ''] = match;
  if (Number(minute) > 59 || Number(hour) > 23) return undefined;
  const days = new Set<number>();
  if (field === '*') for (let day = 0; day < 7; day++) days.add(day);
  else
    for (const part of field.split(',')) {
      const range = /^([0-7])(?:-([0-7]))?$/.exec(part);
      if (!range) return undefined;
      const from = Number(range[1]);
      const to = range[2] === undefined ? from : Number(range[2]);
      if (to < from) return undefined;
      for (let day = from; day <= to; day++) days.add(day % 7);
    }
  const time = `${hour.padStart(2, '0')}:${minute.padStart(2, '0')}`;
  return { days: [...days].sort((a, b) => a - b), time, timezone };
}

/** The cron line of a weekly schedule: runs of three or more days as ranges, every day as `*`. */
export function formatAutostart(schedule: WeeklySchedule): string {
  const [hour = '0', minute = '0'] = schedule.time.split(':');
  const days = [...new Set(schedule.days)].sort((a, b) => a - b);
  let field: string;
  if (days.length === 7) field = '*';
  else {
    const parts: string[] = [];
    for (let index = 0; index < days.length;) {
      let end = index;
      while (end + 1 < days.length && days[end + 1] === (days[end] ?? 0) + 1) end++;
      const first = days[index];
      const last = days[end];
      if (end - index >= 2) parts.push(`${first}-${last}`);
      else for (let day = index; day <= end; day++) parts.push(String(days[day]));
      index = end + 1;
    }
    field = parts.join(',');
  }
  return `CRON_TZ=${schedule.timezone} ${Number(minute)} ${Number(hour)} * * ${field}`;
}

function browserTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

function timezones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [...new Set(['UTC', current, browserTimezone(), ...known])].sort((a, b) => a.localeCompare(b));
}

function hoursText(ms: number): string {
  return String(Math.round((ms / 3_600_000) * 100) / 100);
}

export function ScheduleSettings({ workspace }: { workspace: Workspace }) {
  const template = useLoad(() => api<Template>('GET', `/templates/${workspace.template_id}`), [workspace.template_id]);
  if (!template.data) return <Loading error={template.error}>Loading the template’s rules…</Loading>;
  return <ScheduleForm workspace={workspace} template={template.data} />;
}

function ScheduleForm({ workspace, template }: { workspace: Workspace; template: Template }) {
  const saved = workspace.autostart_schedule ?? '';
  const parsed = useMemo(() => (saved ? parseAutostart(saved) : undefined), [saved]);
  const [autostart, setAutostart] = useState(saved !== '');
  const [days, setDays] = useState<readonly number[]>(parsed?.days ?? [1, 2, 3, 4, 5]);
  const [time, setTime] = useState(parsed?.time ?? '09:00');
  const [timezone, setTimezone] = useState(parsed?.timezone ?? browserTimezone());
  const savedTtl = workspace.ttl_ms ? hoursText(workspace.ttl_ms) : '';
  const [ttlHours, setTtlHours] = useState(savedTtl);
  const zones = useMemo(() => timezones(timezone), [timezone]);

  const allowedDays = new Set(template.autostart_requirement.days_of_week);
  const mayAutostart = template.allow_user_autostart;
  const mayAutostop = template.allow_user_autostop;
  const cron = autostart ? formatAutostart({ days, time, timezone }) : '';
  const ttlNumber = ttlHours.trim() === '' ? 0 : Number(ttlHours);
  const problem =
    autostart && days.length === 0
      ? 'Pick at least one day, or turn autostart off.'
      : autostart && !/^\d{2}:\d{2}$/.test(time)
        ? 'Pick a start time.'
        : !Number.isFinite(ttlNumber) || ttlNumber < 0
          ? 'The hours before stopping must be a positive number.'
          : ttlNumber > 0 && ttlNumber < 1 / 60
            ? 'Stop after at least one minute.'
            : ttlNumber > 30 * 24
              ? 'Stop after at most 30 days (720 hours).'
              : undefined;

  const [save, startSave] = useAction(async () => {
    // Only what changed is sent: a setting the template locks would be refused even when resent as it was.
    if (mayAutostart && cron !== saved) await api('PUT', `/workspaces/${workspace.id}/autostart`, { body: { schedule: cron || null } });
    if (mayAutostop && ttlHours.trim() !== savedTtl) {
      const ttl = ttlNumber > 0 ? Math.round(ttlNumber * 60) * 60_000 : null;
      await api('PUT', `/workspaces/${workspace.id}/ttl`, { body: { ttl_ms: ttl } });
    }
    return 'Schedule saved.';
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!problem) void startSave();
  };
  const toggleDay = (day: number, on: boolean) =>
    setDays((current) => (on ? [...new Set([...current, day])] : current.filter((candidate) => candidate !== day)));

  return (
    <form className="form card" onSubmit={onSubmit} aria-labelledby="schedule-settings-title" noValidate>
      <h2 id="schedule-settings-title">Schedule</h2>
      <p className="muted settings-summary" data-summary="schedule">
        {workspace.next_start_at ? (
          <>
            Next autostart <Time iso={workspace.next_start_at} />.
          </>
        ) : (
          'No autostart is coming up.'
        )}{' '}
        {workspace.latest_build.status === 'running' && workspace.latest_build.deadline && (
          <>
            The current build stops <Time iso={workspace.latest_build.deadline} />.
          </>
        )}
      </p>
      {saved && !parsed && (
        <p className="notice" data-note="raw-schedule">
          The autostart schedule <code>{saved}</code> cannot be shown as days and a time; saving this form replaces it.
        </p>
      )}
      <fieldset className="field" disabled={!mayAutostart}>
        <legend className="field-label">Autostart</legend>
        {!mayAutostart && <p className="field-hint">The template does not let users start workspaces on a schedule.</p>}
        <label className="checkbox">
          <input type="checkbox" checked={autostart} onChange={(event) => setAutostart(event.target.checked)} />
          Start this workspace on a schedule
        </label>
        {autostart && (
          <>
            <fieldset className="settings-days">
              <legend className="field-label">Days</legend>
              {DAYS.map((day) => {
                const allowed = allowedDays.has(day.name);
                return (
                  <label
                    key={day.name}
                    className="checkbox"
                    title={allowed ? undefined : 'The template does not allow autostart on this day.'}
                  >
                    <input
                      type="checkbox"
                      checked={days.includes(day.number)}
                      disabled={!allowed && !days.includes(day.number)}
                      onChange={(event) => toggleDay(day.number, event.target.checked)}
                    />
                    {day.label}
                    {!allowed && <span className="muted"> (not allowed by the template)</span>}
                  </label>
                );
              })}
            </fieldset>
            <div className="settings-row">
              <label className="field">
                <span className="field-label">Start time</span>
                <input type="time" value={time} required onChange={(event) => setTime(event.target.value)} />
              </label>
              <label className="field">
                <span className="field-label">Time zone</span>
                <select value={timezone} onChange={(event) => setTimezone(event.target.value)}>
                  {zones.map((zone) => (
                    <option key={zone} value={zone}>
                      {zone}
                    </option>
                  ))}
                </select>
              </label>
            </div>
            <p className="field-hint">
              Sent as <code data-cron="autostart">{cron}</code>
            </p>
          </>
        )}
      </fieldset>
      <label className="field">
        <span className="field-label">Autostop: stop after (hours without use)</span>
        <input
          type="number"
          min={0}
          step={0.5}
          inputMode="decimal"
          value={ttlHours}
          disabled={!mayAutostop}
          aria-describedby="ttl-hint"
          onChange={(event) => setTtlHours(event.target.value)}
        />
        <span id="ttl-hint" className="field-hint">
          {mayAutostop
            ? `Empty: it runs until stopped. The template suggests ${template.default_ttl_ms > 0 ? formatDuration(template.default_ttl_ms) : 'no limit'}.`
            : `The template sets this: ${template.default_ttl_ms > 0 ? formatDuration(template.default_ttl_ms) : 'no automatic stop'}.`}
        </span>
      </label>
      {problem && (
        <p className="field-problem" role="alert">
          {problem}
        </p>
      )}
      <div className="form-actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={save.state === 'pending' || !!problem || (!mayAutostart && !mayAutostop)}
        >
          Save schedule
        </button>
        <ActionStatus state={save} pending="Saving…" />
      </div>
    </form>
  );
}
