/**
 * Cron schedules of agent scripts, as the reference reads them: a seconds field first, then
 * minute, hour, day of month, month and optionally day of week (`sec min hour dom month [dow]`),
 * in the agent's local time. Each field takes `*`, numbers, ranges, lists and `/step`.
 */
export interface CronSpec {
  readonly seconds: ReadonlySet<number>;
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly days: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly weekdays: ReadonlySet<number>;
  /** Whether day of month and day of week were both restricted: then either may match. */
  readonly eitherDay: boolean;
}

const BOUNDS: readonly (readonly [number, number])[] = [
  [0, 59],
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];

/** Parses a script's `cron`; throws an Error naming the field at fault. */
export function parseCron(text: string): CronSpec {
  const fields = text.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    throw new Error(`cron "${text}" must have 5 or 6 fields: seconds, minutes, hours, day of month, month[, day of week]`);
  }
  const sets = BOUNDS.map(([min, max], index) => parseField(fields[index] ?? '*', min, max, text));
  const weekdays = new Set([...(sets[5] ?? [])].map((day) => day % 7));
  return {
    seconds: sets[0] ?? new Set(),
    minutes: sets[1] ?? new Set(),
    hours: sets[2] ?? new Set(),
    days: sets[3] ?? new Set(),
    months: sets[4] ?? new Set(),
    weekdays,
    eitherDay: (fields[3] ?? '*') !== '*' && (fields[5] ?? '*') !== '*',
  };
}

function parseField(field: string, min: number, max: number, text: string): Set<number> {
  const values = new Set<number>();
  for (const part of field.split(',')) {
    const [range = '', stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new Error(`cron "${text}": bad step in "${part}"`);
    let from = min;
    let to = max;
    if (range !== '*') {
      const [a, b] = range.split('-');
      from = Number(a);
      to = b === undefined ? (stepText === undefined ? from : max) : Number(b);
    }
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < min || to > max || from > to) {
      throw new Error(`cron "${text}": "${part}" is outside ${min}-${max}`);
    }
    for (let value = from; value <= to; value += step) values.add(value);
  }
  return values;
}

/** The first time strictly after `after` that the schedule names, within a year; undefined if none. */
export function nextCron(spec: CronSpec, after: Date): Date | undefined {
  const at = new Date(after.getTime());
  at.setMilliseconds(0);
  at.setSeconds(at.getSeconds() + 1);
  const limit = after.getTime() + 366 * 24 * 3_600_000;
  while (at.getTime() <= limit) {
    if (!dayMatches(spec, at)) {
      at.setDate(at.getDate() + 1);
      at.setHours(0, 0, 0);
      continue;
    }
    if (!spec.hours.has(at.getHours())) {
      at.setHours(at.getHours() + 1, 0, 0);
      continue;
    }
    if (!spec.minutes.has(at.getMinutes())) {
      at.setMinutes(at.getMinutes() + 1, 0);
      continue;
    }
    if (!spec.seconds.has(at.getSeconds())) {
      at.setSeconds(at.getSeconds() + 1);
      continue;
    }
    return at;
  }
  return undefined;
}

function dayMatches(spec: CronSpec, at: Date): boolean {
  if (!spec.months.has(at.getMonth() + 1)) return false;
  const day = spec.days.has(at.getDate());
  const weekday = spec.weekdays.has(at.getDay());
  return spec.eitherDay ? day || weekday : day && weekday;
}
