import { CronError, parseCron } from '../../lib/cron.js';
import { next, parseDailySchedule, ScheduleError, type CronSchedule } from './cron-schedule.js';

/**
 * A user's quiet hours: the daily minute at which template-required stops may happen. One time a
 * day only, since the max deadline is rounded to a single window start.
 */

/** What is wrong with a quiet-hours schedule, named by the field of the request at fault. */
export interface QuietHoursProblem {
  /** `timezone` when the `CRON_TZ=` zone is unknown, else `schedule`. */
  readonly part: 'schedule' | 'timezone';
  readonly detail: string;
}

/**
 * Parses a quiet-hours schedule: daily (day-of-month, month and day-of-week `*`) with a single
 * minute and hour, in an optional `CRON_TZ=` zone.
 * @throws ScheduleError when it is not one.
 */
export function parseQuietHoursSchedule(text: string): CronSchedule {
  const schedule = parseDailySchedule(text);
  if (schedule.minutes.length !== 1 || schedule.hours.length !== 1) {
    throw new ScheduleError(`daily schedule "${text}" has more than one time: quiet hours start at one minute of one hour`);
  }
  return schedule;
}

/** What is wrong with `text` as quiet hours, or undefined when nothing. */
export function quietHoursProblem(text: string): QuietHoursProblem | undefined {
  try {
    parseQuietHoursSchedule(text);
    return undefined;
  } catch (error) {
    if (!(error instanceof ScheduleError)) throw error;
    return { part: zoneIsAtFault(text) ? 'timezone' : 'schedule', detail: error.message };
  }
}

function zoneIsAtFault(text: string): boolean {
  try {
    parseCron(text, { seconds: false, optionalWeekday: false, sundayAsSeven: false, defaultZone: 'UTC' });
    return false;
  } catch (error) {
    return error instanceof CronError && error.problem === 'zone';
  }
}

/** The answer of `GET /users/{user}/quiet-hours`, before it goes on the wire. */
export interface QuietHoursSummary {
  readonly rawSchedule: string;
  readonly userSet: boolean;
  readonly userCanSet: boolean;
  /** `HH:mm`, 24-hour, in `timezone`. */
  readonly time: string;
  readonly timezone: string;
  readonly next: Date;
}

/** What quiet hours depend on: the deployment's settings and the user's stored choice. */
export interface QuietHoursSettings {
  /** The deployment's default schedule, checked when the daemon started. */
  readonly defaultSchedule: string;
  /** Whether users may choose their own; when not, everyone has the default. */
  readonly allowUserCustom: boolean;
}

/**
 * The schedule in effect for a user: their own when they set one and the deployment lets users
 * choose, else the deployment default. A stored text that no longer parses counts as unset.
 */
export function effectiveQuietHours(settings: QuietHoursSettings, stored: string): { schedule: CronSchedule; userSet: boolean } {
  if (settings.allowUserCustom && stored.trim() !== '') {
    try {
      return { schedule: parseQuietHoursSchedule(stored), userSet: true };
    } catch (error) {
      if (!(error instanceof ScheduleError)) throw error;
    }
  }
  return { schedule: parseQuietHoursSchedule(settings.defaultSchedule), userSet: false };
}

/** The user's quiet hours as the API describes them at `now`. */
export function quietHoursSummary(settings: QuietHoursSettings, stored: string, now: Date): QuietHoursSummary {
  const { schedule, userSet } = effectiveQuietHours(settings, stored);
  return {
    rawSchedule: schedule.text,
    userSet,
    userCanSet: settings.allowUserCustom,
    time: `${pad(schedule.hour)}:${pad(schedule.minute)}`,
    timezone: schedule.timezone,
    next: next(schedule, now),
  };
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
