// The user's quiet hours (`/users/me/quiet-hours`): the time of day, in their timezone, at which
// a template's autostop requirement stops their workspaces. Chosen as a time and a timezone; the API keeps it
// as a daily cron schedule.
import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { Time } from '../components/status.js';
import { SettingsHeader } from './settings-header.js';

/** The quiet-hours schedule as the API answers it. */
interface QuietHoursSchedule {
  readonly raw_schedule: string;
  readonly user_set: boolean;
  readonly user_can_set: boolean;
  /** `HH:MM`, in `timezone`. */
  readonly time: string;
  readonly timezone: string;
  readonly next: string;
}

/** What the page loads: the schedule, or that this deployment does not serve quiet hours. */
type Loaded = { readonly served: true; readonly schedule: QuietHoursSchedule } | { readonly served: false };

export function SettingsSchedulePage() {
  const loaded = useLoad<Loaded>(
    () =>
      api<QuietHoursSchedule>('GET', '/users/me/quiet-hours').then(
        (schedule) => ({ served: true, schedule }),
        (error: unknown) => {
          if (error instanceof ApiError && error.status === 404) return { served: false };
          throw error;
        },
      ),
    [],
  );
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
  if (!loaded.data.served)
    return (
      <section className="page">
        {header}
        <div className="notice notice-warn">
          <p>This deployment does not offer quiet hours: it has no schedule for you to set.</p>
        </div>
      </section>
    );
  return (
    <section className="page">
      {header}
      <QuietHoursForm schedule={loaded.data.schedule} onSaved={(schedule) => loaded.setData({ served: true, schedule })} />
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
