import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { activityBump, computeDeadlines, ScheduleError, validateTtlMs, type DeadlineParams } from '../../src/domain/schedule/index.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SATURDAY = 1 << 5;
const QUIET_NEW_YORK_3AM = 'CRON_TZ=America/New_York 0 3 * * *';

function deadlines(overrides: Partial<DeadlineParams> & Pick<DeadlineParams, 'now'>): {
  deadline: string | null;
  maxDeadline: string | null;
} {
  const result = computeDeadlines({ workspaceTtlMs: null, templateDefaultTtlMs: 0, allowUserAutostop: true, ...overrides });
  return { deadline: result.deadline?.toISOString() ?? null, maxDeadline: result.maxDeadline?.toISOString() ?? null };
}

describe('computeDeadlines', () => {
  it('sets the deadline from the workspace TTL and no max deadline without a requirement', () => {
    assert.deepEqual(deadlines({ now: new Date('2024-06-05T16:00:00Z'), workspaceTtlMs: 8 * HOUR }), {
      deadline: '2024-06-06T00:00:00.000Z',
      maxDeadline: null,
    });
    assert.deepEqual(deadlines({ now: new Date('2024-06-05T16:00:00Z') }), { deadline: null, maxDeadline: null });
  });

  it('uses the template default TTL when users may not set autostop', () => {
    const now = new Date('2024-06-05T16:00:00Z');
    assert.equal(
      deadlines({ now, workspaceTtlMs: 8 * HOUR, templateDefaultTtlMs: 2 * HOUR, allowUserAutostop: false }).deadline,
      '2024-06-05T18:00:00.000Z',
    );
    assert.equal(deadlines({ now, workspaceTtlMs: 8 * HOUR, templateDefaultTtlMs: 0, allowUserAutostop: false }).deadline, null);
  });

  it('counts the TTL from the next autostart when the deadline would pass it', () => {
    // Started 21:45 with a 12 h TTL and a 09:00 autostart: stop at 21:00 tomorrow, not 09:45.
    const now = new Date('2024-06-05T21:45:00Z');
    const params = { now, workspaceTtlMs: 12 * HOUR, autostartSchedule: 'CRON_TZ=UTC 0 9 * * *' };
    assert.equal(deadlines(params).deadline, '2024-06-06T21:00:00.000Z');
    // Not when the template does not allow an autostart on that day.
    assert.equal(deadlines({ ...params, autostartDays: 0 }).deadline, '2024-06-06T09:45:00.000Z');
  });

  it('puts the max deadline at the quiet hours of a required day in a required fortnight', () => {
    const requirement = { daysBitmap: SATURDAY, weeks: 2 };
    // Wednesday 5 June 2024 is in week 74 since 2023-01-02 (even): stop on Saturday 8 June, 03:00 EDT.
    assert.deepEqual(
      deadlines({
        now: new Date('2024-06-05T16:00:00Z'),
        workspaceTtlMs: 8 * HOUR,
        autostopRequirement: requirement,
        userQuietHours: QUIET_NEW_YORK_3AM,
      }),
      { deadline: '2024-06-06T00:00:00.000Z', maxDeadline: '2024-06-08T07:00:00.000Z' },
    );
    // Wednesday 12 June is in week 75 (odd): the next required week starts Monday 17 June.
    assert.equal(
      deadlines({ now: new Date('2024-06-12T16:00:00Z'), autostopRequirement: requirement, userQuietHours: QUIET_NEW_YORK_3AM })
        .maxDeadline,
      '2024-06-22T07:00:00.000Z',
    );
  });

  it('skips quiet hours less than two hours away', () => {
    // Saturday 02:00 EDT, quiet hours at 03:00: too close, so the next Saturday.
    const result = deadlines({
      now: new Date('2024-06-08T06:00:00Z'),
      autostopRequirement: { daysBitmap: SATURDAY, weeks: 1 },
      userQuietHours: QUIET_NEW_YORK_3AM,
    });
    assert.equal(result.maxDeadline, '2024-06-15T07:00:00.000Z');
    // Friday 23:00 EDT is four hours before: that Saturday still counts.
    const earlier = deadlines({
      now: new Date('2024-06-08T03:00:00Z'),
      autostopRequirement: { daysBitmap: SATURDAY, weeks: 1 },
      userQuietHours: QUIET_NEW_YORK_3AM,
    });
    assert.equal(earlier.maxDeadline, '2024-06-08T07:00:00.000Z');
  });

  it('uses midnight UTC quiet hours by default and none when quiet hours are unavailable', () => {
    const now = new Date('2024-06-05T16:00:00Z');
    const requirement = { daysBitmap: SATURDAY, weeks: 1 };
    assert.equal(deadlines({ now, autostopRequirement: requirement }).maxDeadline, '2024-06-08T00:00:00.000Z');
    assert.equal(deadlines({ now, autostopRequirement: requirement, userQuietHours: null }).maxDeadline, null);
  });

  it('caps the deadline at the max deadline', () => {
    assert.deepEqual(
      deadlines({
        now: new Date('2024-06-05T16:00:00Z'),
        workspaceTtlMs: 14 * DAY,
        autostopRequirement: { daysBitmap: SATURDAY, weeks: 2 },
        userQuietHours: QUIET_NEW_YORK_3AM,
      }),
      { deadline: '2024-06-08T07:00:00.000Z', maxDeadline: '2024-06-08T07:00:00.000Z' },
    );
    // No TTL at all: the requirement alone stops the workspace.
    assert.equal(
      deadlines({
        now: new Date('2024-06-05T16:00:00Z'),
        autostopRequirement: { daysBitmap: SATURDAY, weeks: 2 },
        userQuietHours: QUIET_NEW_YORK_3AM,
      }).deadline,
      '2024-06-08T07:00:00.000Z',
    );
  });

  it('refuses quiet hours that are not a daily schedule', () => {
    assert.throws(
      () =>
        computeDeadlines({
          now: new Date('2024-06-05T16:00:00Z'),
          workspaceTtlMs: null,
          templateDefaultTtlMs: 0,
          allowUserAutostop: true,
          autostopRequirement: { daysBitmap: SATURDAY, weeks: 1 },
          userQuietHours: 'CRON_TZ=UTC 0 3 * * 1',
        }),
      ScheduleError,
    );
  });
});

describe('activityBump', () => {
  const now = new Date('2024-06-05T12:00:00Z');
  const at = (iso: string) => new Date(iso);

  it('moves a deadline inside the window to now + bump', () => {
    assert.equal(
      activityBump({ deadline: at('2024-06-05T12:30:00Z'), maxDeadline: null, now, bumpMs: HOUR })?.toISOString(),
      '2024-06-05T13:00:00.000Z',
    );
  });

  it('leaves a deadline alone until 5% of the bump has passed', () => {
    // 57 minutes away with a one-hour bump: only 3 minutes (5%) used.
    assert.equal(activityBump({ deadline: at('2024-06-05T12:57:00Z'), maxDeadline: null, now, bumpMs: HOUR }), null);
    assert.equal(
      activityBump({ deadline: at('2024-06-05T12:56:59Z'), maxDeadline: null, now, bumpMs: HOUR })?.toISOString(),
      '2024-06-05T13:00:00.000Z',
    );
  });

  it('never passes the max deadline', () => {
    assert.equal(
      activityBump({ deadline: at('2024-06-05T12:10:00Z'), maxDeadline: at('2024-06-05T12:40:00Z'), now, bumpMs: HOUR })?.toISOString(),
      '2024-06-05T12:40:00.000Z',
    );
  });

  it('does nothing with a zero bump or without a deadline', () => {
    assert.equal(activityBump({ deadline: at('2024-06-05T12:10:00Z'), maxDeadline: null, now, bumpMs: 0 }), null);
    assert.equal(activityBump({ deadline: null, maxDeadline: null, now, bumpMs: HOUR }), null);
  });

  it('counts the TTL from the next autostart when the bump would cross it', () => {
    const bumped = activityBump({
      deadline: at('2024-06-05T12:10:00Z'),
      maxDeadline: null,
      now,
      bumpMs: HOUR,
      nextAutostart: at('2024-06-05T12:30:00Z'),
      ttlMs: 8 * HOUR,
    });
    assert.equal(bumped?.toISOString(), '2024-06-05T20:30:00.000Z');
  });
});

describe('validateTtlMs', () => {
  it('truncates to whole minutes and treats 0 or null as off', () => {
    assert.equal(validateTtlMs(90_000), 60_000);
    assert.equal(validateTtlMs(30 * DAY), 30 * DAY);
    assert.equal(validateTtlMs(0), null);
    assert.equal(validateTtlMs(null), null);
  });

  it('refuses less than a minute and more than 30 days with the reference texts', () => {
    assert.throws(() => validateTtlMs(59_999), { name: 'ScheduleError', message: 'time until shutdown must be at least one minute' });
    assert.throws(() => validateTtlMs(30 * DAY + 60_000), {
      name: 'ScheduleError',
      message: 'time until shutdown must be less than 30 days',
    });
  });
});
