// The user's quiet hours (`/users/me/quiet-hours`): the time of day, in their timezone, at which
// a template's autostop requirement stops their workspaces. Chosen as a time and a timezone; the API keeps it
// as a daily cron schedule.
import { useEffect, useState, type FormEvent } from 'react';
import type { UserQuietHoursScheduleResponse as QuietHoursSchedule } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { Time } from '../components/status.js';
import { SettingsHeader } from './settings-header.js';

export function SettingsSchedulePage() {
  const loaded = useLoad(() => api<QuietHoursSchedule>('GET', '/users/me/quiet-hours'), []);
  const header = (
    <SettingsHeader title="Schedule">
      Your quiet hours: when workspaces whose template requires a regular stop are stopped, so that it happens while you are not working.
    </SettingsHeader>
  );
  if (!loaded.data)
    return (
      <section className="page">
        {header}
        <Loading error={loaded.error} />
      </section>
    );
  return (
    <section className="page">
      {header}
      <QuietHoursForm schedule={loaded.data} onSaved={loaded.setData} />
    </section>
  );
}

function QuietHoursForm({ schedule, onSaved }: { schedule: QuietHoursSchedule; onSaved: (schedule: QuietHoursSchedule) => void }) {
  const [time, setTime] = useState(schedule.time);
  const [timezone, setTimezone] = useState(schedule.timezone || browserTimezone());
  useEffect(() => {
    setTime(schedule.time);
    setTimezone(schedule.timezone || browserTimezone());
  }, [schedule]);
  const [saved, save] = useAction(async () => {
    const [hours, minutes] = time.split(':').map(Number);
    const answer = await api<QuietHoursSchedule>('PUT', '/users/me/quiet-hours', {
      body: { schedule: `CRON_TZ=${timezone} ${minutes ?? 0} ${hours ?? 0} * * *` },
    });
    onSaved(answer);
    return 'Quiet hours saved.';
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save();
  };
  const zones = timezones(timezone);
  const locked = !schedule.user_can_set;
  return (
    <form className="card form settings-form" onSubmit={submit} aria-label="Quiet hours">
      {locked && (
        <div className="notice notice-warn">
          <p>This deployment sets everyone&apos;s quiet hours; you cannot change yours.</p>
        </div>
      )}
      <div className="field">
        <label className="field-label" htmlFor="quiet-hours-time">
          Start of quiet hours
        </label>
        <input
          id="quiet-hours-time"
          type="time"
          value={time}
          required
          disabled={locked}
          onChange={(event) => setTime(event.target.value)}
        />
      </div>
      <div className="field">
        <label className="field-label" htmlFor="quiet-hours-timezone">
          Timezone
        </label>
        <select id="quiet-hours-timezone" value={timezone} disabled={locked} onChange={(event) => setTimezone(event.target.value)}>
          {zones.map((zone) => (
            <option key={zone} value={zone}>
              {zone}
            </option>
          ))}
        </select>
      </div>
      <p className="field-hint">
        {schedule.user_set
          ? 'You chose this schedule.'
          : locked
            ? 'The deployment’s schedule.'
            : 'The deployment’s default schedule, until you choose one.'}
        {schedule.next && (
          <>
            {' '}
            Next quiet hours start <Time iso={schedule.next} /> ({new Date(schedule.next).toLocaleString()}).
          </>
        )}
      </p>
      {!locked && (
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={saved.state === 'pending' || !time}>
            Save quiet hours
          </button>
          <ActionStatus state={saved} pending="Saving…" />
        </div>
      )}
    </form>
  );
}

function browserTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** The IANA timezones this browser knows, with UTC and the one chosen among them. */
function timezones(chosen: string): string[] {
  const known = new Set(Intl.supportedValuesOf('timeZone'));
  known.add('UTC');
  if (chosen) known.add(chosen);
  return [...known].sort();
}
