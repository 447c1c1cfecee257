import { Cron } from 'croner';
import { isKnownZone, localZone, zonedParts, zonedTimeCandidates } from './zoned-time.js';

/**
 * Cron texts as the reference reads them (robfig/cron): an optional `CRON_TZ=<IANA zone>` prefix,
 * then the fields of a layout. Fields take numbers, `*`/`?`, ranges, lists and steps; month and
 * day of week also names (`jan`, `mon`). This module checks a text with the reference's error
 * wording and hands the values to croner, which finds the occurrences in the zone.
 */

/** Which fields a cron text has. */
export interface CronLayout {
  /** A seconds field comes first (the agent's scripts); without it occurrences are whole minutes. */
  readonly seconds: boolean;
  /** Day of week may be left off (then it is `*`). */
  readonly optionalWeekday: boolean;
  /** Day of week goes up to 7, another name for Sunday, instead of 6. */
  readonly sundayAsSeven: boolean;
  /** The zone without a `CRON_TZ=` prefix; the process's local zone when not set. */
  readonly defaultZone?: string;
}

/** Why a text was refused; callers that have their own wording choose it from this. */
export type CronProblem = 'shape' | 'zone' | 'range' | 'step' | 'syntax';

/** A text that does not parse; `message` is the reference parser's wording, `part` the piece at fault. */
export class CronError extends Error {
  constructor(
    message: string,
    readonly problem: CronProblem,
    readonly part: string = '',
    readonly bounds: { readonly min: number; readonly max: number } = { min: 0, max: 0 },
  ) {
    super(message);
    this.name = 'CronError';
  }
}

/** A parsed cron text. */
export interface CronExpression {
  /** The text it was parsed from, verbatim. */
  readonly text: string;
  /** The zone occurrences are wall-clock times in. */
  readonly timezone: string;
  readonly seconds: readonly number[];
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly days: readonly number[];
  readonly months: readonly number[];
  /** 0 = Sunday .. 6 = Saturday (a 7 is read as 0). */
  readonly weekdays: readonly number[];
  /**
   * The first occurrence strictly after `after`, or undefined when there is none (30 February).
   * As in the reference, a wall time that a DST change skips does not occur that day, and one
   * that it repeats occurs once, at its first instant.
   */
  next(after: Date): Date | undefined;
}

const PREFIX = 'CRON_TZ=';
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

/** Occurrences croner finds that fall in a DST gap or repeat are skipped; a handful at most follow each other. */
const MAX_SKIPPED = 16;

/**
 * Parses a cron text in `layout`.
 * @throws CronError with the reference's wording (without the caller's prefix such as "parse schedule: ").
 */
export function parseCron(text: string, layout: CronLayout): CronExpression {
  let timezone = layout.defaultZone ?? localZone();
  let spec = text.trim();
  if (text.startsWith(PREFIX)) {
    const space = text.search(/\s/);
    timezone = text.slice(PREFIX.length, space < 0 ? undefined : space) || 'UTC';
    spec = space < 0 ? '' : text.slice(space).trim();
    checkZone(timezone);
  }
  if (spec.startsWith('@')) throw new CronError(`parser does not accept descriptors: ${spec}`, 'shape', spec);
  const fields = spec.split(/\s+/).filter(Boolean);
  const most = layout.seconds ? 6 : 5;
  const least = layout.optionalWeekday ? most - 1 : most;
  if (fields.length < least || fields.length > most) {
    const expected = least === most ? `exactly ${most}` : `${least} to ${most}`;
    throw new CronError(`expected ${expected} fields, found ${fields.length}: [${fields.join(' ')}]`, 'shape', spec);
  }
  const full = [...(layout.seconds ? [] : ['0']), ...fields, ...(fields.length < most ? ['*'] : [])];
  const [secondField, minuteField, hourField, dayField, monthField, weekdayField] = full as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const seconds = parseField(secondField, { min: 0, max: 59 });
  const minutes = parseField(minuteField, { min: 0, max: 59 });
  const hours = parseField(hourField, { min: 0, max: 23 });
  const days = parseField(dayField, { min: 1, max: 31 });
  const months = parseField(monthField, { min: 1, max: 12, names: MONTH_NAMES });
  const weekdays = [
    ...new Set(parseField(weekdayField, { min: 0, max: layout.sundayAsSeven ? 7 : 6, names: WEEKDAY_NAMES }).map((day) => day % 7)),
  ].sort((a, b) => a - b);
  // A `*` stays a `*` for croner: whether day of month or day of week is restricted decides how they combine.
  const pattern = [seconds, minutes, hours, days, months, weekdays]
    .map((values, index) => (isStar(full[index] ?? '*') ? '*' : values.join(',')))
    .join(' ');
  const job = new Cron(pattern, { timezone, paused: true, mode: '6-part' });
  const secondSet = new Set(seconds);
  const minuteSet = new Set(minutes);
  const hourSet = new Set(hours);
  const isOccurrence = (at: Date): boolean => {
    const parts = zonedParts(at, timezone);
    if (!secondSet.has(parts.second) || !minuteSet.has(parts.minute) || !hourSet.has(parts.hour)) return false;
    return zonedTimeCandidates(parts, timezone)[0]?.getTime() === at.getTime();
  };
  return {
    text,
    timezone,
    seconds,
    minutes,
    hours,
    days,
    months,
    weekdays,
    next(after: Date): Date | undefined {
      let from = after;
      for (let skipped = 0; skipped <= MAX_SKIPPED; skipped += 1) {
        const at = job.nextRun(from);
        if (!at) return undefined;
        // croner moves a time in a DST gap to after the gap and may run a repeated time twice.
        if (isOccurrence(at)) return at;
        from = at;
      }
      return undefined;
    },
  };
}

function isStar(field: string): boolean {
  return field === '*' || field === '?';
}

function checkZone(zone: string): void {
  // The reference resolves "Local" against the server's own zone, and refuses that.
  if (zone === 'Local') throw new CronError('schedules scoped to time.Local are not supported', 'zone', zone);
  // Intl also takes numeric offsets ("+01:00"), which are not IANA names.
  if (/^[+-]|:/.test(zone) || !isKnownZone(zone)) {
    throw new CronError(`provided bad location ${zone}: unknown time zone ${zone}`, 'zone', zone);
  }
}

/** One field as the sorted values it allows. */
function parseField(field: string, range: FieldRange): number[] {
  const values = new Set<number>();
  for (const part of field.split(',').filter(Boolean)) {
    for (const value of parseRange(part, range)) values.add(value);
  }
  // An empty set would never fire; the reference would search for years and give up.
  if (values.size === 0) throw new CronError(`field "${field}" allows no values`, 'syntax', field, range);
  return [...values].sort((a, b) => a - b);
}

function parseRange(expr: string, range: FieldRange): number[] {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
  let start: number;
  let end: number;
  if (isStar(lowAndHigh[0] ?? '')) {
    start = range.min;
    end = range.max;
  } else {
    if (lowAndHigh.length > 2) throw new CronError(`too many hyphens: ${expr}`, 'syntax', expr, range);
    start = parseIntOrName(lowAndHigh[0] ?? '', expr, range);
    end = lowAndHigh[1] === undefined ? start : parseIntOrName(lowAndHigh[1], expr, range);
  }
  let step = 1;
  if (rangeAndStep.length > 2) throw new CronError(`too many slashes: ${expr}`, 'syntax', expr, range);
  if (rangeAndStep[1] !== undefined) {
    step = parseNumber(rangeAndStep[1], expr, range);
    // `a/n` means from a to the end of the field, every n.
    if (lowAndHigh.length === 1) end = range.max;
  }
  if (start < range.min) throw new CronError(`beginning of range (${start}) below minimum (${range.min}): ${expr}`, 'range', expr, range);
  if (end > range.max) throw new CronError(`end of range (${end}) above maximum (${range.max}): ${expr}`, 'range', expr, range);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`, 'range', expr, range);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`, 'step', expr, range);
  const values: number[] = [];
  for (let value = start; value <= end; value += step) values.push(value);
  return values;
}

function parseIntOrName(text: string, expr: string, range: FieldRange): number {
  return range.names?.[text.toLowerCase()] ?? parseNumber(text, expr, range);
}

function parseNumber(text: string, expr: string, range: FieldRange): number {
  if (!/^[+-]?\d+$/.test(text)) {
    throw new CronError(`failed to parse int from ${text}: strconv.Atoi: parsing "${text}": invalid syntax`, 'syntax', expr, range);
  }
  const value = Number(text);
  if (value < 0) throw new CronError(`negative number (${value}) not allowed: ${expr}`, 'range', expr, range);
  return value;
}
