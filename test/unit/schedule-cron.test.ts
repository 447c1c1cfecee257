import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  dayNamesFromBitmap,
  daysBitmapFromNames,
  next,
  nextAutostart,
  parseDailySchedule,
  parseWeeklySchedule,
  ScheduleError,
  weeklyScheduleProblem,
  zonedParts,
  zonedTimeToUtc,
} from '../../src/domain/schedule/index.js';

const WEEKDAYS = 0b001_1111;
const ALL_DAYS = 0b111_1111;

function nextIso(text: string, after: string): string {
  return next(parseWeeklySchedule(text), new Date(after)).toISOString();
}

function parseMessage(text: string, parse = parseWeeklySchedule): string {
  try {
    parse(text);
  } catch (error) {
    assert.ok(error instanceof ScheduleError, `expected a ScheduleError, got ${String(error)}`);
    return error.message;
  }
  assert.fail(`expected "${text}" to be refused`);
}

describe('parseWeeklySchedule', () => {
  it('reads the zone, minute, hour and weekdays of an autostart schedule', () => {
    const schedule = parseWeeklySchedule('CRON_TZ=Europe/London 30 9 * * 1-5');
    assert.equal(schedule.timezone, 'Europe/London');
    assert.equal(schedule.minute, 30);
    assert.equal(schedule.hour, 9);
    assert.deepEqual([...schedule.weekdays].sort(), [1, 2, 3, 4, 5]);
    assert.equal(schedule.text, 'CRON_TZ=Europe/London 30 9 * * 1-5');
  });

  it('defaults to UTC and accepts lists, steps and day names', () => {
    const schedule = parseWeeklySchedule('0,30 */6 * * mon,WED,fri');
    assert.equal(schedule.timezone, 'UTC');
    assert.deepEqual(schedule.minutes, [0, 30]);
    assert.deepEqual(schedule.hours, [0, 6, 12, 18]);
    assert.deepEqual([...schedule.weekdays].sort(), [1, 3, 5]);
  });

  it('refuses an unknown zone with the reference text', () => {
    assert.equal(
      parseMessage('CRON_TZ=Mars/Olympus 30 9 * * 1'),
      'parse schedule: provided bad location Mars/Olympus: unknown time zone Mars/Olympus',
    );
    assert.match(parseMessage('CRON_TZ=+01:00 30 9 * * 1'), /bad location/);
  });

  it('requires day-of-month and month to be *', () => {
    assert.equal(parseMessage('CRON_TZ=UTC 30 9 1 * 1'), 'validate weekly schedule: expected day-of-month and month to be *');
    assert.equal(parseMessage('30 9 * 6 1'), 'validate weekly schedule: expected day-of-month and month to be *');
  });

  it('requires five fields', () => {
    assert.equal(
      parseMessage('30 9 * *'),
      'validate weekly schedule: expected schedule to consist of 5 fields with an optional CRON_TZ=<timezone> prefix',
    );
    assert.match(parseMessage('@daily'), /5 fields/);
  });

  it('refuses values out of range', () => {
    assert.equal(parseMessage('60 9 * * 1'), 'parse schedule: end of range (60) above maximum (59): 60');
    assert.equal(parseMessage('0 24 * * 1'), 'parse schedule: end of range (24) above maximum (23): 24');
    assert.equal(parseMessage('0 9 * * 7'), 'parse schedule: end of range (7) above maximum (6): 7');
    assert.equal(parseMessage('0 9 * * 5-1'), 'parse schedule: beginning of range (5) beyond end of range (1): 5-1');
    assert.match(parseMessage('x 9 * * 1'), /^parse schedule: failed to parse int from x/);
  });

  it('reports problems for the create-workspace check', () => {
    assert.equal(weeklyScheduleProblem('CRON_TZ=America/New_York 0 8 * * 1-5'), undefined);
    assert.equal(weeklyScheduleProblem('0 8 1 1 *'), 'validate weekly schedule: expected day-of-month and month to be *');
  });
});

describe('parseDailySchedule', () => {
  it('reads quiet hours and refuses a day-of-week', () => {
    const quiet = parseDailySchedule('CRON_TZ=Asia/Tokyo 0 2 * * *');
    assert.equal(quiet.timezone, 'Asia/Tokyo');
    assert.equal(quiet.weekdays.size, 7);
    assert.equal(
      parseMessage('CRON_TZ=UTC 0 0 * * 1', parseDailySchedule),
      'validate daily schedule: expected day-of-month, month and day-of-week to be *',
    );
  });
});

describe('next', () => {
  it('is strictly after the given instant', () => {
    assert.equal(nextIso('CRON_TZ=UTC 30 9 * * *', '2024-06-05T09:30:00Z'), '2024-06-06T09:30:00.000Z');
    assert.equal(nextIso('CRON_TZ=UTC 30 9 * * *', '2024-06-05T09:29:59Z'), '2024-06-05T09:30:00.000Z');
  });

  it('keeps the wall time across the spring change in Europe/London', () => {
    // Saturday 09:30 GMT, then Sunday 31 March 2024 09:30 BST.
    assert.equal(nextIso('CRON_TZ=Europe/London 30 9 * * *', '2024-03-30T09:30:00Z'), '2024-03-31T08:30:00.000Z');
  });

  it('skips a wall time the spring change removes, and fires a repeated one once', () => {
    const schedule = 'CRON_TZ=Europe/London 30 1 * * *';
    assert.equal(nextIso(schedule, '2024-03-30T02:00:00Z'), '2024-04-01T00:30:00.000Z');
    const first = nextIso(schedule, '2024-10-26T12:00:00Z');
    assert.equal(first, '2024-10-27T00:30:00.000Z');
    assert.equal(nextIso(schedule, first), '2024-10-28T01:30:00.000Z');
  });

  it('keeps the wall time across both changes in America/New_York', () => {
    const schedule = 'CRON_TZ=America/New_York 0 9 * * 1-5';
    // Friday 09:00 EST, then Monday 09:00 EDT after the 10 March 2024 change.
    assert.equal(nextIso(schedule, '2024-03-08T14:00:00Z'), '2024-03-11T13:00:00.000Z');
    // Friday 09:00 EDT, then Monday 09:00 EST after the 3 November 2024 change.
    assert.equal(nextIso(schedule, '2024-11-01T13:00:00Z'), '2024-11-04T14:00:00.000Z');
  });

  it('only fires on the listed weekdays, judged in the schedule zone', () => {
    // Monday 08:00 in Auckland is Sunday evening in UTC.
    assert.equal(nextIso('CRON_TZ=Pacific/Auckland 0 8 * * 1', '2024-06-05T00:00:00Z'), '2024-06-09T20:00:00.000Z');
    assert.equal(nextIso('CRON_TZ=UTC 0 8 * * 6', '2024-06-05T00:00:00Z'), '2024-06-08T08:00:00.000Z');
  });
});

describe('zoned time helpers', () => {
  it('read wall-clock parts and convert them back', () => {
    const parts = zonedParts(new Date('2024-07-01T23:15:30Z'), 'Asia/Kolkata');
    assert.deepEqual(parts, { year: 2024, month: 7, day: 2, hour: 4, minute: 45, second: 30, weekday: 2 });
    assert.equal(zonedTimeToUtc(parts, 'Asia/Kolkata').toISOString(), '2024-07-01T23:15:30.000Z');
  });

  it('resolve a skipped wall time after the gap and a repeated one to its first instant', () => {
    const at = (hour: number, month: number, day: number) => ({ year: 2024, month, day, hour, minute: 30, second: 0 });
    assert.equal(zonedTimeToUtc(at(2, 3, 10), 'America/New_York').toISOString(), '2024-03-10T07:30:00.000Z');
    assert.equal(zonedTimeToUtc(at(1, 11, 3), 'America/New_York').toISOString(), '2024-11-03T05:30:00.000Z');
  });
});

describe('nextAutostart', () => {
  const base = { after: new Date('2024-06-07T12:00:00Z'), templateAllowsAutostart: true, autostartDays: ALL_DAYS };

  it('is null without a schedule or when the template does not allow it', () => {
    assert.equal(nextAutostart({ ...base, schedule: null }), null);
    assert.equal(nextAutostart({ ...base, schedule: '' }), null);
    assert.equal(nextAutostart({ ...base, schedule: 'CRON_TZ=UTC 0 9 * * *', templateAllowsAutostart: false }), null);
    assert.equal(nextAutostart({ ...base, schedule: 'CRON_TZ=UTC 0 9 * * *', autostartDays: 0 }), null);
    assert.equal(nextAutostart({ ...base, schedule: 'not a schedule' }), null);
  });

  it('skips occurrences on days the template does not allow', () => {
    // Friday noon; a daily 09:00 schedule with weekdays-only autostart waits for Monday.
    const at = nextAutostart({ ...base, schedule: 'CRON_TZ=UTC 0 9 * * *', autostartDays: WEEKDAYS });
    assert.equal(at?.toISOString(), '2024-06-10T09:00:00.000Z');
  });

  it('judges the allowed day in the schedule zone', () => {
    // 08:00 Monday in Auckland (Sunday 20:00 UTC) is allowed when only Monday is.
    const at = nextAutostart({ ...base, schedule: 'CRON_TZ=Pacific/Auckland 0 8 * * *', autostartDays: daysBitmapFromNames(['monday']) });
    assert.equal(at?.toISOString(), '2024-06-09T20:00:00.000Z');
  });
});

describe('day bitmaps', () => {
  it('map the API day names both ways', () => {
    assert.equal(daysBitmapFromNames(['monday', 'sunday']), 0b100_0001);
    assert.deepEqual(dayNamesFromBitmap(0b001_0010), ['tuesday', 'friday']);
    assert.throws(() => daysBitmapFromNames(['someday']), ScheduleError);
  });
});
