import { HttpProblem, type FieldValidation } from '../lib/errors.js';
import { isUuid } from '../lib/random.js';
import { epochMinute } from './usage-minutes.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** How far back the daily active users and the user status counts reach. */
export const RECENT_DAYS = 60;
/** The offsets `tz_offset` may name, in hours east of UTC. */
const TZ_OFFSET_RANGE = { min: -12, max: 14 } as const;

const INVALID_QUERY = 'Query parameter has invalid value.';

/** The 400 for query parameters that parse but break the rules, one validation per field. */
function invalidQuery(validations: readonly FieldValidation[]): HttpProblem {
  return new HttpProblem(400, INVALID_QUERY, { validations });
}

/** A report's time range: its instants, the client's offset (minutes east of UTC) and its epoch minutes. */
export interface ReportRange {
  readonly start: Date;
  readonly end: Date;
  readonly offsetMinutes: number;
  readonly from: number;
  readonly to: number;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

interface ParsedTime {
  readonly at: Date;
  readonly offsetMinutes: number;
  readonly wall: {
    readonly year: number;
    readonly month: number;
    readonly day: number;
    readonly hour: number;
    readonly minute: number;
    readonly second: number;
    readonly fraction: boolean;
  };
}

function parseRfc3339(text: string): ParsedTime | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const zone = match[8] ?? 'Z';
  const offsetMinutes =
    zone.toUpperCase() === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const at = new Date(
    Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * MINUTE_MS + Number(`0${match[7] ?? ''}`) * 1000,
  );
  const roundTrip = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // 2026-02-30 and 25:00 are not times.
  if (Number.isNaN(at.getTime()) || roundTrip.getUTCDate() !== day || roundTrip.getUTCHours() !== hour || month < 1 || month > 12)
    return undefined;
  return { at, offsetMinutes, wall: { year, month, day, hour, minute, second, fraction: /[1-9]/.test(match[7] ?? '') } };
}

/**
 * Reads and checks `start_time` and `end_time` as the reference does: RFC 3339 with an offset
 * (which sets the report's time zone), not the zero time, not in the future (past the next whole
 * hour), the start at midnight, the end at midnight or, on today's date, on a whole hour, and the
 * end after the start. Every broken rule is a 400 naming its field.
 */
export function parseReportRange(startText: string, endText: string, now: Date): ReportRange {
  const latest = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS;
  const problems: FieldValidation[] = [];
  const read = (field: 'start_time' | 'end_time', text: string): ParsedTime | undefined => {
    const parsed = parseRfc3339(text);
    if (!parsed) {
      problems.push({ field, detail: `Query param "${field}" must be a valid date format (2006-01-02T15:04:05Z07:00): "${text}"` });
      return undefined;
    }
    if (parsed.wall.year <= 1) {
      problems.push({ field, detail: `Query param "${field}" must not be zero` });
      return undefined;
    }
    if (parsed.at.getTime() > latest) {
      problems.push({ field, detail: `Query param "${field}" must not be in the future` });
      return undefined;
    }
    return parsed;
  };
  const start = read('start_time', startText);
  const end = read('end_time', endText);
  if (start && !isMidnight(start)) {
    problems.push({ field: 'start_time', detail: 'Query param "start_time" must have the clock set to 00:00:00' });
  }
  if (end && !isMidnight(end)) {
    const today = wallDate(now, end.offsetMinutes);
    const onToday = end.wall.year === today.year && end.wall.month === today.month && end.wall.day === today.day;
    const wholeHour = end.wall.minute === 0 && end.wall.second === 0 && !end.wall.fraction;
    if (!onToday) problems.push({ field: 'end_time', detail: 'Query param "end_time" must have the clock set to 00:00:00' });
    else if (!wholeHour) problems.push({ field: 'end_time', detail: 'Query param "end_time" must have minutes and seconds set to 00:00' });
  }
  if (start && end && problems.length === 0 && end.at.getTime() <= start.at.getTime()) {
    problems.push({ field: 'end_time', detail: 'Query param "end_time" must be after than "start_time"' });
  }
  if (problems.length > 0 || !start || !end) throw invalidQuery(problems);
  return { start: start.at, end: end.at, offsetMinutes: start.offsetMinutes, from: epochMinute(start.at), to: epochMinute(end.at) };
}

function isMidnight(time: ParsedTime): boolean {
  return time.wall.hour === 0 && time.wall.minute === 0 && time.wall.second === 0 && !time.wall.fraction;
}

function wallDate(at: Date, offsetMinutes: number): { year: number; month: number; day: number } {
  const shifted = new Date(at.getTime() + offsetMinutes * MINUTE_MS);
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

/** A report interval: one day or one week from the start, the last one ending at the range's end. */
export interface ReportInterval {
  readonly start: Date;
  readonly end: Date;
}

/** Minutes in an interval of this kind. */
export function intervalMinutes(interval: 'day' | 'week'): number {
  return interval === 'week' ? 7 * 1440 : 1440;
}

/**
 * The intervals of a report. Weekly reports refuse a last interval shorter than six days (a week
 * less an hour passes, for clients that count across a daylight-saving change), as the reference.
 */
export function reportIntervals(range: ReportRange, interval: 'day' | 'week'): ReportInterval[] {
  const step = intervalMinutes(interval) * MINUTE_MS;
  const span = range.end.getTime() - range.start.getTime();
  const rest = span % step;
  if (interval === 'week' && rest !== 0 && rest < 6 * DAY_MS - HOUR_MS) {
    throw invalidQuery([{ field: 'interval', detail: 'Last report interval should have at least 6 days.' }]);
  }
  const intervals: ReportInterval[] = [];
  for (let at = range.start.getTime(); at < range.end.getTime(); at += step) {
    intervals.push({ start: new Date(at), end: new Date(Math.min(at + step, range.end.getTime())) });
  }
  return intervals;
}

/** `template_ids`: repeated or comma-separated UUIDs; anything else is a 400. */
export function parseTemplateIds(values: readonly string[] | undefined): string[] {
  const ids = (values ?? [])
    .flatMap((value) => value.split(','))
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const bad = ids.filter((id) => !isUuid(id));
  if (bad.length > 0)
    throw invalidQuery([{ field: 'template_ids', detail: `Query param "template_ids" must be a list of UUIDs: "${bad.join(',')}"` }]);
  return [...new Set(ids)];
}

/** `tz_offset`: whole hours east of UTC, within the offsets zones use. */
export function checkTzOffset(hours: number): number {
  if (!Number.isInteger(hours) || hours < TZ_OFFSET_RANGE.min || hours > TZ_OFFSET_RANGE.max) {
    throw invalidQuery([
      {
        field: 'tz_offset',
        detail: `Query param "tz_offset" must be a whole number of hours from ${TZ_OFFSET_RANGE.min} to ${TZ_OFFSET_RANGE.max}`,
      },
    ]);
  }
  return hours;
}

/** The last 60 days up to the next whole hour, in an offset: as epoch minutes, and the midnights within. */
export interface RecentDays {
  readonly from: number;
  readonly to: number;
  readonly midnights: readonly Date[];
}

/** The window of the daily active users and the user status counts (reference §12.3, §12.7). */
export function recentDays(now: Date, offsetHours: number): RecentDays {
  const offsetMs = offsetHours * HOUR_MS;
  const nextHour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS;
  const startOfDay = Math.floor((nextHour + offsetMs) / DAY_MS) * DAY_MS - offsetMs;
  const first = startOfDay - RECENT_DAYS * DAY_MS;
  const midnights: Date[] = [];
  for (let at = first; at <= nextHour; at += DAY_MS) midnights.push(new Date(at));
  return { from: Math.floor(first / MINUTE_MS), to: Math.floor(nextHour / MINUTE_MS), midnights };
}

/** The calendar date (YYYY-MM-DD) of a day counted in whole days since the epoch in some offset. */
export function dayDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** An instant as RFC 3339 in an offset (minutes east of UTC), `Z` for UTC. */
export function formatInOffset(at: Date, offsetMinutes: number): string {
  const wall = new Date(at.getTime() + offsetMinutes * MINUTE_MS).toISOString().slice(0, 19);
  if (offsetMinutes === 0) return `${wall}Z`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${wall}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
