/**
 * Checks a workspace autostart schedule: `CRON_TZ=<zone> <minute> <hour> * * <days of week>`.
 * Returns what is wrong, or undefined.
 */
export function autostartScheduleProblem(schedule: string): string | undefined {
  const match = /^(?:CRON_TZ=(\S+)\s+)?(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$/.exec(schedule.trim());
  if (!match) return 'expected "CRON_TZ=<zone> <minute> <hour> * * <days of week>"';
  const [, zone, minute, hour, dom, month, dow] = match;
  if (zone) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
    } catch {
      return `unknown time zone "${zone}"`;
    }
  }
  if (!isValues(minute ?? '', 0, 59)) return `invalid minute "${minute}"`;
  if (!isValues(hour ?? '', 0, 23)) return `invalid hour "${hour}"`;
  if (dom !== '*' || month !== '*') return 'day-of-month and month must be *';
  if (!isValues((dow ?? '').replace(/\bsun\b|\bmon\b|\btue\b|\bwed\b|\bthu\b|\bfri\b|\bsat\b/gi, '0'), 0, 7)) return `invalid days of week "${dow}"`;
  return undefined;
}

/** A cron field of numbers, ranges, lists and steps within bounds, or `*`. */
function isValues(field: string, min: number, max: number): boolean {
  if (field === '*') return true;
  return field.split(',').every((part) => {
    const [range, step] = part.split('/');
    if (step !== undefined && !/^\d+$/.test(step)) return false;
    if (range === '*') return true;
    const [from, to] = (range ?? '').split('-');
    const inBounds = (text: string | undefined) => text !== undefined && /^\d+$/.test(text) && Number(text) >= min && Number(text) <= max;
    return inBounds(from) && (to === undefined || inBounds(to));
  });
}
