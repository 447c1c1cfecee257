/**
 * The reference's schedule texts: `CRON_TZ=<IANA zone> <minute> <hour> <day-of-month> <month>
 * <day-of-week>`, used weekly for workspace autostart and daily for user quiet hours, and the
 * time-zone arithmetic (through `Intl`) that finds their occurrences.
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
}

/** A wall-clock date and time; months are 1–12. */
export interface LocalDateTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

/** A wall-clock date and time in some zone, with its weekday (0 = Sunday). */
export interface ZonedParts extends LocalDateTime {
  readonly weekday: number;
}

/** The deployment's quiet hours when nobody configured any: midnight UTC. */
export const DEFAULT_QUIET_HOURS_SCHEDULE = 'CRON_TZ=UTC 0 0 * * *';

const PREFIX = 'CRON_TZ=';
const SHAPE = 'expected schedule to consist of 5 fields with an optional CRON_TZ=<timezone> prefix';
const DAY_MS = 86_400_000;
/** Weekly schedules recur within 8 days; the margin covers days whose times a DST gap removed. */
const SEARCH_DAYS = 7 * 4;

const WEEKDAY_NAMES: Readonly<Record<string, number>> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const MONTH_NAMES: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

interface FieldRange {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

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
  let timezone = 'UTC';
  let spec = text.trim();
  if (text.startsWith(PREFIX)) {
    const space = text.search(/\s/);
    timezone = text.slice(PREFIX.length, space < 0 ? undefined : space) || 'UTC';
    spec = space < 0 ? '' : text.slice(space).trim();
    checkZone(timezone);
  }
  if (spec.startsWith('@')) throw parseError(`parser does not accept descriptors: ${spec}`);
  const fields = spec.split(/\s+/).filter(Boolean);
  if (fields.length !== 5) throw parseError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minuteField, hourField, domField, monthField, dowField] = fields as [string, string, string, string, string];
  const minutes = parseField(minuteField, { min: 0, max: 59 });
  const hours = parseField(hourField, { min: 0, max: 23 });
  parseField(domField, { min: 1, max: 31 });
  parseField(monthField, { min: 1, max: 12, names: MONTH_NAMES });
  const weekdays = parseField(dowField, { min: 0, max: 6, names: WEEKDAY_NAMES });
  return {
    timezone,
    minute: minutes[0] ?? 0,
    hour: hours[0] ?? 0,
    minutes,
    hours,
    weekdays: new Set(weekdays),
    text,
  };
}

function parseError(detail: string): ScheduleError {
  return new ScheduleError(`parse schedule: ${detail}`);
}

function checkZone(zone: string): void {
  // The reference resolves zones against the server's local zone for "Local", and refuses that.
  if (zone === 'Local') throw parseError('schedules scoped to time.Local are not supported');
  // Intl also takes numeric offsets ("+01:00"), which are not IANA names.
  const refused = /^[+-]|:/.test(zone) || !isKnownZone(zone);
  if (refused) throw parseError(`provided bad location ${zone}: unknown time zone ${zone}`);
}

function isKnownZone(zone: string): boolean {
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

/** One cron field as the sorted values it allows, with the reference parser's error texts. */
function parseField(field: string, range: FieldRange): number[] {
  const values = new Set<number>();
  for (const part of field.split(',').filter(Boolean)) {
    for (const value of parseRange(part, range)) values.add(value);
  }
  // An empty set would never fire; the reference would search for years and give up.
  if (values.size === 0) throw parseError(`field "${field}" allows no values`);
  return [...values].sort((a, b) => a - b);
}

function parseRange(expr: string, range: FieldRange): number[] {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = range.min;
    end = range.max;
  } else {
    if (lowAndHigh.length > 2) throw parseError(`too many hyphens: ${expr}`);
    start = parseIntOrName(lowAndHigh[0] ?? '', range.names);
    end = lowAndHigh[1] === undefined ? start : parseIntOrName(lowAndHigh[1], range.names);
  }
  let step = 1;
  if (rangeAndStep.length > 2) throw parseError(`too many slashes: ${expr}`);
  if (rangeAndStep[1] !== undefined) {
    step = parseNumber(rangeAndStep[1]);
    // `a/n` means from a to the end of the field, every n.
    if (lowAndHigh.length === 1) end = range.max;
  }
  if (start < range.min) throw parseError(`beginning of range (${start}) below minimum (${range.min}): ${expr}`);
  if (end > range.max) throw parseError(`end of range (${end}) above maximum (${range.max}): ${expr}`);
  if (start > end) throw parseError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw parseError(`step of range should be a positive number: ${expr}`);
  const values: number[] = [];
  for (let value = start; value <= end; value += step) values.push(value);
  return values;
}

function parseIntOrName(expr: string, names: Readonly<Record<string, number>> | undefined): number {
  const named = names?.[expr.toLowerCase()];
  return named ?? parseNumber(expr);
}

function parseNumber(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) throw parseError(`failed to parse int from ${expr}: strconv.Atoi: parsing "${expr}": invalid syntax`);
  const value = Number(expr);
  if (value < 0) throw parseError(`negative number (${value}) not allowed: ${expr}`);
  return value;
}

/**
 * The first occurrence of `schedule` strictly after `after`.
 *
 * Wall-clock times that a DST change skips do not occur that day (as in the reference); a time
 * that a DST change repeats occurs once, at its first instant.
 */
export function next(schedule: CronSchedule, after: Date): Date {
  const zone = schedule.timezone;
  const start = zonedParts(after, zone);
  const startMinute = start.hour * 60 + start.minute;
  for (let offset = 0; offset <= SEARCH_DAYS; offset += 1) {
    const date = addDays(start, offset);
    if (!schedule.weekdays.has(weekdayOf(date))) continue;
    for (const hour of schedule.hours) {
      for (const minute of schedule.minutes) {
        // Earlier wall times on the first day map to instants no later than `after`.
        if (offset === 0 && hour * 60 + minute <= startMinute) continue;
        const instant = zonedTimeCandidates({ ...date, hour, minute, second: 0 }, zone)[0];
        if (instant !== undefined && instant.getTime() > after.getTime()) return instant;
      }
    }
  }
  throw new ScheduleError(`schedule "${schedule.text}" has no occurrence within ${SEARCH_DAYS} days of ${after.toISOString()}`);
}

/** The wall-clock date and time of `date` in `zone`, to the second. */
export function zonedParts(date: Date, zone: string): ZonedParts {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(zone).formatToParts(date)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const local = {
    year: parts['year'] ?? Number.NaN,
    month: parts['month'] ?? Number.NaN,
    day: parts['day'] ?? Number.NaN,
    // Some ICU versions write midnight as 24 even with h23.
    hour: (parts['hour'] ?? Number.NaN) % 24,
    minute: parts['minute'] ?? Number.NaN,
    second: parts['second'] ?? Number.NaN,
  };
  return { ...local, weekday: weekdayOf(local) };
}

/**
 * The instant a wall-clock time in `zone` denotes. A repeated time gives its first instant; a
 * skipped time is read with the offset from before the change, so it lands after the gap
 * (02:30 on a spring-forward night in London becomes 03:30 BST).
 */
export function zonedTimeToUtc(parts: LocalDateTime, zone: string): Date {
  const candidates = zonedTimeCandidates(parts, zone);
  if (candidates[0]) return candidates[0];
  const wall = wallMs(parts);
  return new Date(wall - offsetAt(wall - DAY_MS, zone));
}

/** Every instant (none, one, or two around a DST change) whose wall time in `zone` is `parts`. */
function zonedTimeCandidates(parts: LocalDateTime, zone: string): Date[] {
  const wall = wallMs(parts);
  // Real zones change offset at most once within a couple of days, so the offsets a day either
  // side are the only ones this wall time can be read with.
  const offsets = new Set([offsetAt(wall - DAY_MS, zone), offsetAt(wall + DAY_MS, zone)]);
  const instants = [...offsets].map((offset) => wall - offset).filter((instant) => offsetAt(instant, zone) === wall - instant);
  return [...new Set(instants)].sort((a, b) => a - b).map((instant) => new Date(instant));
}

/** How far `zone`'s wall clock is ahead of UTC at `instant`, in milliseconds. */
function offsetAt(instant: number, zone: string): number {
  const whole = Math.floor(instant / 1000) * 1000;
  return wallMs(zonedParts(new Date(whole), zone)) - whole;
}

function wallMs(parts: LocalDateTime): number {
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
}

interface LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

function addDays(date: LocalDate, days: number): LocalDate {
  const shifted = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

function weekdayOf(date: LocalDate): number {
  return new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
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
