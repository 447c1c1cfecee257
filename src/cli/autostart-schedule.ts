import { CronError, parseCron } from '../lib/cron.js';
import { isKnownZone, localZone } from '../lib/zoned-time.js';
import { CliError } from './cli-error.js';

/** How the reference's CLI words a time it cannot read. */
const TIME_FORMAT = 'Start time must be in the format hh:mm[am|pm] or HH:MM';
const EXAMPLES = 'e.g. "9:30AM Mon-Fri Europe/Dublin", "09:30 Mon-Fri", "5PM Sat,Sun", or cron: "CRON_TZ=Europe/Dublin 30 9 * * 1-5"';

/**
 * Reads an autostart schedule as the reference's `schedule start` takes it: `TIME [DAYS] [ZONE]`
 * (12- or 24-hour time; days as cron writes them, `Mon-Fri` or `1,3,5`; an IANA zone, by default
 * `$TZ` or the local zone), or a cron text with an optional `CRON_TZ=` prefix as the API stores
 * it. Returns the cron text the API stores: `CRON_TZ=<zone> <minute> <hour> * * <days>`.
 */
export function parseAutostartSchedule(words: readonly string[], env: Readonly<Record<string, string | undefined>>): string {
  const parts = words.flatMap((word) => word.split(/\s+/)).filter(Boolean);
  const [first = ''] = parts;
  // Cron passes through as written; the API checks it and words its own error.
  if (first.startsWith('CRON_TZ=') || parts.length >= 5) return parts.join(' ');
  if (parts.length > 3) throw new CliError(`"${parts.join(' ')}" is not a schedule.`, { hint: `Write TIME [DAYS] [ZONE], ${EXAMPLES}.` });
  const { hour, minute } = parseTime(first);
  let days = '*';
  let zone: string | undefined;
  if (parts.length === 3) {
    days = parts[1] ?? '*';
    zone = requireZone(parts[2] ?? '');
  } else if (parts.length === 2) {
    // One more word is a zone when it names one, else the days (as the reference decides).
    const word = parts[1] ?? '';
    if (!looksLikeDays(word) && isZone(word)) zone = word;
    else days = word;
  }
  zone ??= defaultZone(env);
  const schedule = `CRON_TZ=${zone} ${minute} ${hour} * * ${days}`;
  try {
    parseCron(schedule, { seconds: false, optionalWeekday: false, sundayAsSeven: false });
  } catch (error) {
    if (!(error instanceof CronError)) throw error;
    throw new CliError(`"${days}" is not a set of days: ${error.message}.`, {
      hint: 'Write days as cron does: Mon-Fri, Sat,Sun, 1-5 or * (every day).',
    });
  }
  return schedule;
}

/** `9:30AM`, `09:30am`, `9:30`, `21:30`, `2130`, `9PM`: the layouts the reference tries. */
function parseTime(text: string): { readonly hour: number; readonly minute: number } {
  const match = /^(\d{1,2})(?::?(\d{2}))?\s*([ap]m)?$/i.exec(text);
  const refuse = (): never => {
    throw new CliError(`${TIME_FORMAT}, not "${text}".`, { hint: `Write the schedule as TIME [DAYS] [ZONE], ${EXAMPLES}.` });
  };
  if (!match) return refuse();
  const [, hourText = '', minuteText, meridiem] = match;
  // A bare number is only a time with minutes (2130) or with AM/PM (9PM).
  if (minuteText === undefined && meridiem === undefined) return refuse();
  if (minuteText !== undefined && !text.includes(':') && hourText.length !== 2) return refuse();
  let hour = Number(hourText);
  const minute = Number(minuteText ?? '0');
  if (minute > 59) return refuse();
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return refuse();
    hour = (hour % 12) + (meridiem.toLowerCase() === 'pm' ? 12 : 0);
  } else if (hour > 23) {
    return refuse();
  }
  return { hour, minute };
}

const WEEKDAYS = new Set(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']);

/** `Mon-Fri`, `sat,sun`, `1-5`, `*`: a day-of-week field rather than a zone. */
function looksLikeDays(word: string): boolean {
  return word.split(/[,/-]/).every((piece) => /^(\d+|\*|\?)$/.test(piece) || WEEKDAYS.has(piece.toLowerCase()));
}

function isZone(word: string): boolean {
  // Intl also takes numeric offsets ("+01:00"); the API wants IANA names.
  return /^[A-Za-z][A-Za-z0-9_+/-]*$/.test(word) && isKnownZone(word);
}

function requireZone(word: string): string {
  if (!isZone(word)) {
    throw new CliError(`Invalid timezone "${word}" specified: a valid IANA timezone is required.`, {
      hint: 'Name a zone such as Europe/Dublin, America/New_York or UTC.',
    });
  }
  return word;
}

/** `$TZ` when it names an IANA zone, else the zone this machine runs in, as the reference does. */
function defaultZone(env: Readonly<Record<string, string | undefined>>): string {
  const fromEnv = env['TZ']?.replace(/^:/, '');
  if (fromEnv && isZone(fromEnv)) return fromEnv;
  const local = localZone();
  return isZone(local) ? local : 'UTC';
}
