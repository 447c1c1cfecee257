/**
 * Wall-clock arithmetic in IANA time zones through `Intl`: the parts of an instant in a zone and
 * the instant a wall-clock time denotes, with the reference's rules for DST gaps and repeats.
 */

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

const DAY_MS = 86_400_000;

/** Whether `Intl` knows `zone` (an IANA name; numeric offsets pass too, callers refuse those). */
export function isKnownZone(zone: string): boolean {
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone this process reads local times in. */
export function localZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone;
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
  return { ...local, weekday: new Date(Date.UTC(local.year, local.month - 1, local.day)).getUTCDay() };
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
export function zonedTimeCandidates(parts: LocalDateTime, zone: string): Date[] {
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
