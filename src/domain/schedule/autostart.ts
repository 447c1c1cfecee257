import {
  ALL_DAYS_BITMAP,
  next,
  parseWeeklySchedule,
  weekdayInBitmap,
  zonedParts,
  zonedTimeToUtc,
  type CronSchedule,
} from './cron-schedule.js';

/** What the next autostart of a workspace depends on. */
export interface NextAutostartParams {
  /** The workspace's `autostart_schedule`; null or empty when it has none. */
  readonly schedule: string | null;
  /** Occurrences strictly after this instant count. */
  readonly after: Date;
  /** The template's `allow_user_autostart` (as the entitlement leaves it). */
  readonly templateAllowsAutostart: boolean;
  /** The template's `autostart_requirement.days_of_week` as a bitmap (Monday = bit 0 .. Sunday = bit 6). */
  readonly autostartDays: number;
}

const WEEK_MS = 7 * 86_400_000;

/**
 * The workspace's `next_start_at`: the first occurrence of its schedule after `after` that falls
 * on a day the template allows, judged in the schedule's own zone. Null when there is no schedule,
 * the template does not allow autostart, the schedule does not parse, or no allowed occurrence
 * comes within a week.
 */
export function nextAutostart(params: NextAutostartParams): Date | null {
  if (!params.templateAllowsAutostart || !params.schedule || (params.autostartDays & ALL_DAYS_BITMAP) === 0) return null;
  const schedule = tryParse(params.schedule);
  return schedule ? nextAllowedOccurrence(schedule, params.after, params.autostartDays) : null;
}

/**
 * The next occurrence after `after` and whether it falls on an allowed day; the deadline rules
 * use it without searching further (the reference's `NextAutostart`).
 */
export function nextOccurrenceAllowed(
  scheduleText: string,
  after: Date,
  autostartDays: number,
): { readonly at: Date; readonly allowed: boolean } | null {
  const schedule = tryParse(scheduleText);
  if (!schedule) return null;
  const at = next(schedule, after);
  return { at, allowed: isAllowedDay(schedule, at, autostartDays) };
}

function nextAllowedOccurrence(schedule: CronSchedule, after: Date, autostartDays: number): Date | null {
  // A weekly schedule has shown every weekday it has once an occurrence is a week out; that last
  // one is still considered, as the reference does.
  for (let previous = after; previous.getTime() - after.getTime() < WEEK_MS;) {
    const candidate = next(schedule, previous);
    if (isAllowedDay(schedule, candidate, autostartDays)) return candidate;
    // Every occurrence that day is on the same forbidden weekday: go on from its last moment.
    previous = new Date(Math.max(candidate.getTime(), endOfLocalDay(candidate, schedule.timezone).getTime()));
  }
  return null;
}

function isAllowedDay(schedule: CronSchedule, at: Date, autostartDays: number): boolean {
  // The occurrence's weekday in the schedule's zone: "Saturday" means the user's Saturday.
  return weekdayInBitmap(autostartDays, zonedParts(at, schedule.timezone).weekday);
}

function endOfLocalDay(at: Date, zone: string): Date {
  const { year, month, day } = zonedParts(at, zone);
  const following = new Date(Date.UTC(year, month - 1, day + 1));
  const midnight = zonedTimeToUtc(
    { year: following.getUTCFullYear(), month: following.getUTCMonth() + 1, day: following.getUTCDate(), hour: 0, minute: 0, second: 0 },
    zone,
  );
  return new Date(midnight.getTime() - 1);
}

function tryParse(text: string): CronSchedule | null {
  try {
    return parseWeeklySchedule(text);
  } catch {
    return null;
  }
}
