import { CronError, parseCron, type CronExpression, type CronLayout } from '../../lib/cron.js';

export { zonedParts, zonedTimeToUtc, type LocalDateTime, type ZonedParts } from '../../lib/zoned-time.js';

/**
 * The reference's schedule texts: `CRON_TZ=<IANA zone> <minute> <hour> <day-of-month> <month>
 * <day-of-week>`, used weekly for workspace autostart and daily for user quiet hours, and the
 * restrictions each kind puts on the cron fields (`src/lib/cron.ts` reads the fields).
 */

/** A schedule text that the reference refuses; `message` is the reference's wording. */
export class ScheduleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScheduleError';
  }
}

/** A parsed schedule. Occurrences are whole minutes, wall-clock time in `timezone`. */
export interface CronSchedule {
  /** The zone as written after `CRON_TZ=`, `UTC` when there was none. */
  readonly timezone: string;
  /** The first (usually the only) minute of the hour the schedule fires at. */
  readonly minute: number;
  /** The first (usually the only) hour of the day the schedule fires at. */
  readonly hour: number;
  /** Every minute of the hour it fires at, ascending; cron lists and ranges give several. */
  readonly minutes: readonly number[];
  /** Every hour of the day it fires at, ascending. */
  readonly hours: readonly number[];
  /** Weekdays it fires on, 0 = Sunday .. 6 = Saturday, in `timezone`. */
  readonly weekdays: ReadonlySet<number>;
  /** The text it was parsed from, verbatim: the reference stores schedules as given. */
  readonly text: string;
  /** The parsed text, which finds the occurrences. */
  readonly cron: CronExpression;
}

/** The deployment's quiet hours when nobody configured any: midnight UTC. */
export const DEFAULT_QUIET_HOURS_SCHEDULE = 'CRON_TZ=UTC 0 0 * * *';

const SHAPE = 'expected schedule to consist of 5 fields with an optional CRON_TZ=<timezone> prefix';
/** Five minute-resolution fields, UTC without a prefix, weekdays 0–6 as in the reference. */
const SCHEDULE_LAYOUT: CronLayout = { seconds: false, optionalWeekday: false, sundayAsSeven: false, defaultZone: 'UTC' };
/** Weekly schedules recur within 8 days; the margin covers days whose times a DST gap removed. */
const SEARCH_DAYS = 7 * 4;
const DAY_MS = 86_400_000;

/**
 * Parses a workspace autostart schedule. Day-of-month and month must be `*`; minute, hour and
 * day-of-week take cron numbers, lists, ranges and steps (day-of-week also `sun`..`sat`).
 * @throws ScheduleError with the reference's message, e.g.
 *   `validate weekly schedule: expected day-of-month and month to be *`.
 */
export function parseWeeklySchedule(text: string): CronSchedule {
  const fields = text.split(/\s+/).filter(Boolean);
  if (fields.length < 5) throw new ScheduleError(`validate weekly schedule: ${SHAPE}`);
  // The reference drops the first word of any six-word text here, CRON_TZ= or not.
  const cron = fields.length === 6 ? fields.slice(1) : fields;
  if (cron[2] !== '*' || cron[3] !== '*') throw new ScheduleError('validate weekly schedule: expected day-of-month and month to be *');
  return parseSchedule(text);
}

/**
 * Parses a quiet-hours schedule: like a weekly one, but day-of-week must be `*` too.
 * @throws ScheduleError with the reference's message.
 */
export function parseDailySchedule(text: string): CronSchedule {
  const fields = text.split(/\s+/).filter(Boolean);
  if (fields.length < 5) throw new ScheduleError(`validate daily schedule: ${SHAPE}`);
  const cron = fields.length === 6 ? fields.slice(1) : fields;
  if (cron[2] !== '*' || cron[3] !== '*' || cron[4] !== '*') {
    throw new ScheduleError('validate daily schedule: expected day-of-month, month and day-of-week to be *');
  }
  return parseSchedule(text);
}

/** What is wrong with an autostart schedule, in the reference's words, or undefined when nothing. */
export function weeklyScheduleProblem(text: string): string | undefined {
  try {
    parseWeeklySchedule(text);
    return undefined;
  } catch (error) {
    if (error instanceof ScheduleError) return error.message;
    throw error;
  }
}

function parseSchedule(text: string): CronSchedule {
  let cron: CronExpression;
  try {
    cron = parseCron(text, SCHEDULE_LAYOUT);
  } catch (error) {
    if (error instanceof CronError) throw new ScheduleError(`parse schedule: ${error.message}`);
    throw error;
  }
  return {
    timezone: cron.timezone,
    minute: cron.minutes[0] ?? 0,
    hour: cron.hours[0] ?? 0,
    minutes: cron.minutes,
    hours: cron.hours,
    weekdays: new Set(cron.weekdays),
    text,
    cron,
  };
}

/**
 * The first occurrence of `schedule` strictly after `after`.
 *
 * Wall-clock times that a DST change skips do not occur that day (as in the reference); a time
 * that a DST change repeats occurs once, at its first instant.
 */
export function next(schedule: CronSchedule, after: Date): Date {
  const at = schedule.cron.next(after);
  if (at && at.getTime() - after.getTime() <= SEARCH_DAYS * DAY_MS) return at;
  throw new ScheduleError(`schedule "${schedule.text}" has no occurrence within ${SEARCH_DAYS} days of ${after.toISOString()}`);
}

/** Every weekday, as the reference's day bitmap (Monday = bit 0 .. Sunday = bit 6). */
export const ALL_DAYS_BITMAP = 0b111_1111;

const DAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/** Whether a weekday (0 = Sunday .. 6 = Saturday) is in a day bitmap (Monday = bit 0 .. Sunday = bit 6). */
export function weekdayInBitmap(bitmap: number, weekday: number): boolean {
  const bit = (weekday + 6) % 7;
  return (bitmap & (1 << bit)) !== 0;
}

/**
 * The day bitmap for the API's `days_of_week` names (`monday` .. `sunday`).
 * @throws ScheduleError for an unknown name.
 */
export function daysBitmapFromNames(names: readonly string[]): number {
  let bitmap = 0;
  for (const name of names) {
    const bit = DAY_NAMES.indexOf(name.toLowerCase() as (typeof DAY_NAMES)[number]);
    if (bit < 0) throw new ScheduleError(`invalid weekday "${name}"`);
    bitmap |= 1 << bit;
  }
  return bitmap;
}

/** The API's `days_of_week` names for a day bitmap, Monday first. */
export function dayNamesFromBitmap(bitmap: number): string[] {
  return DAY_NAMES.filter((_, bit) => (bitmap & (1 << bit)) !== 0);
}
