import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideTransition, deletingAtFor, type LifecycleInput } from '../../src/domain/schedule/index.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ALL_DAYS = 0b111_1111;

type Overrides = {
  readonly now?: Date;
  readonly ownerStatus?: LifecycleInput['ownerStatus'];
  readonly workspace?: Partial<LifecycleInput['workspace']>;
  readonly latestBuild?: Partial<LifecycleInput['latestBuild']>;
  readonly template?: Partial<LifecycleInput['template']>;
};

const at = (iso: string) => new Date(iso);

/** A running workspace, recently used, on a template with no executor rules switched on. */
function input(overrides: Overrides = {}): LifecycleInput {
  return {
    now: overrides.now ?? at('2024-06-05T12:00:00Z'),
    ownerStatus: overrides.ownerStatus ?? 'active',
    workspace: {
      autostartSchedule: null,
      lastUsedAt: at('2024-06-05T11:00:00Z'),
      dormantAt: null,
      deletingAt: null,
      ...overrides.workspace,
    },
    latestBuild: {
      transition: 'start',
      createdAt: at('2024-06-05T08:00:00Z'),
      deadline: null,
      maxDeadline: null,
      jobStatus: 'succeeded',
      jobCompletedAt: at('2024-06-05T08:01:00Z'),
      ...overrides.latestBuild,
    },
    template: {
      allowUserAutostart: true,
      autostartDays: ALL_DAYS,
      failureTtlMs: 0,
      timeTilDormantMs: 0,
      timeTilDormantAutodeleteMs: 0,
      ...overrides.template,
    },
  };
}

const NOTHING = { transition: null, reason: null, rule: null, markDormant: false };

describe('decideTransition: autostop', () => {
  it('stops a started workspace once the tick reaches its deadline', () => {
    const build = { deadline: at('2024-06-05T12:00:00Z') };
    assert.deepEqual(decideTransition(input({ latestBuild: build, now: at('2024-06-05T11:59:00Z') })), NOTHING);
    // The tick is truncated to the minute, so 12:00:40 counts as 12:00.
    assert.deepEqual(decideTransition(input({ latestBuild: build, now: at('2024-06-05T12:00:40Z') })), {
      transition: 'stop',
      reason: 'autostop',
      rule: 'autostop',
      markDormant: false,
    });
  });

  it('stops the workspaces of a suspended owner, but not dormant workspaces', () => {
    assert.equal(decideTransition(input({ ownerStatus: 'suspended' })).transition, 'stop');
    const dormant = input({ latestBuild: { deadline: at('2024-06-05T10:00:00Z') }, workspace: { dormantAt: at('2024-06-04T00:00:00Z') } });
    assert.deepEqual(decideTransition(dormant), NOTHING);
  });
});

describe('decideTransition: autostart', () => {
  const stopped = {
    workspace: { autostartSchedule: 'CRON_TZ=Europe/London 30 9 * * 1-5' },
    latestBuild: { transition: 'stop' as const, createdAt: at('2024-06-04T18:00:00Z'), jobCompletedAt: at('2024-06-04T18:01:00Z') },
  };

  it('starts a stopped workspace at its scheduled time, in the schedule zone', () => {
    // 09:30 BST on Wednesday 5 June is 08:30 UTC.
    assert.deepEqual(decideTransition(input({ ...stopped, now: at('2024-06-05T08:29:00Z') })), NOTHING);
    assert.deepEqual(decideTransition(input({ ...stopped, now: at('2024-06-05T08:30:00Z') })), {
      transition: 'start',
      reason: 'autostart',
      rule: 'autostart',
      markDormant: false,
    });
  });

  it('starts once per scheduled time, not twice', () => {
    const now = at('2024-06-05T08:31:00Z');
    // The next tick sees the autostart build as the latest one: nothing more to do.
    const started = input({
      ...stopped,
      now,
      latestBuild: { transition: 'start', createdAt: at('2024-06-05T08:30:00Z'), jobCompletedAt: at('2024-06-05T08:30:30Z') },
    });
    assert.deepEqual(decideTransition(started), NOTHING);
    // Stopped again by hand after this morning's time: the next start is tomorrow's.
    const stoppedAgain = { ...stopped.latestBuild, createdAt: at('2024-06-05T08:45:00Z') };
    assert.deepEqual(decideTransition(input({ ...stopped, latestBuild: stoppedAgain, now: at('2024-06-05T09:00:00Z') })), NOTHING);
    assert.equal(decideTransition(input({ ...stopped, latestBuild: stoppedAgain, now: at('2024-06-06T08:30:00Z') })).transition, 'start');
  });

  it('still starts late when the ticks around the scheduled time were missed', () => {
    assert.equal(decideTransition(input({ ...stopped, now: at('2024-06-05T10:15:00Z') })).transition, 'start');
  });

  it('does not start on a day the template forbids, or when autostart is not allowed', () => {
    const now = at('2024-06-05T08:30:00Z');
    const wednesdayOff = 0b111_1011;
    assert.deepEqual(decideTransition(input({ ...stopped, now, template: { autostartDays: wednesdayOff } })), NOTHING);
    assert.deepEqual(decideTransition(input({ ...stopped, now, template: { allowUserAutostart: false } })), NOTHING);
    assert.deepEqual(decideTransition(input({ ...stopped, now, ownerStatus: 'dormant' })), NOTHING);
  });
});

describe('decideTransition: failed builds', () => {
  const failed = { transition: 'start' as const, jobStatus: 'failed' as const, jobCompletedAt: at('2024-06-05T10:00:00Z') };

  it('stops a failed start once the failure TTL has passed', () => {
    const template = { failureTtlMs: HOUR };
    assert.deepEqual(decideTransition(input({ latestBuild: failed, template, now: at('2024-06-05T11:00:00Z') })), NOTHING);
    assert.deepEqual(decideTransition(input({ latestBuild: failed, template, now: at('2024-06-05T11:01:00Z') })), {
      transition: 'stop',
      reason: 'autostop',
      rule: 'failedstop',
      markDormant: false,
    });
  });

  it('leaves failed builds alone without a failure TTL', () => {
    assert.deepEqual(decideTransition(input({ latestBuild: failed, now: at('2024-06-06T11:01:00Z') })), NOTHING);
  });
});

describe('decideTransition: dormancy and deletion', () => {
  const template = { timeTilDormantMs: 7 * DAY, timeTilDormantAutodeleteMs: 30 * DAY };

  it('makes a workspace unused for longer than time_til_dormant dormant, stopping it if started', () => {
    const lastUsedAt = at('2024-05-29T12:00:00Z');
    assert.deepEqual(decideTransition(input({ template, workspace: { lastUsedAt }, now: at('2024-06-05T12:00:00Z') })), NOTHING);
    assert.deepEqual(decideTransition(input({ template, workspace: { lastUsedAt }, now: at('2024-06-05T12:01:00Z') })), {
      transition: 'stop',
      reason: 'dormancy',
      rule: 'dormancy',
      markDormant: true,
    });
    const stopped = input({ template, workspace: { lastUsedAt }, latestBuild: { transition: 'stop' }, now: at('2024-06-05T12:01:00Z') });
    assert.deepEqual(decideTransition(stopped), { transition: null, reason: 'dormancy', rule: 'dormancy', markDormant: true });
  });

  it('deletes a dormant workspace after its deleting_at', () => {
    const dormantAt = at('2024-05-01T00:00:00Z');
    const workspace = {
      lastUsedAt: at('2024-04-01T00:00:00Z'),
      dormantAt,
      deletingAt: deletingAtFor(dormantAt, template.timeTilDormantAutodeleteMs),
    };
    assert.equal(workspace.deletingAt?.toISOString(), '2024-05-31T00:00:00.000Z');
    const latestBuild = { transition: 'stop' as const };
    assert.deepEqual(decideTransition(input({ template, workspace, latestBuild, now: at('2024-05-31T00:00:00Z') })), NOTHING);
    assert.deepEqual(decideTransition(input({ template, workspace, latestBuild, now: at('2024-05-31T00:01:00Z') })), {
      transition: 'delete',
      reason: 'autodelete',
      rule: 'autodelete',
      markDormant: false,
    });
  });

  it('retries a failed autodelete only after a day', () => {
    const dormantAt = at('2024-05-01T00:00:00Z');
    const workspace = { lastUsedAt: at('2024-04-01T00:00:00Z'), dormantAt, deletingAt: at('2024-05-31T00:00:00Z') };
    const latestBuild = { transition: 'delete' as const, jobStatus: 'failed' as const, jobCompletedAt: at('2024-06-01T00:00:00Z') };
    assert.deepEqual(decideTransition(input({ template, workspace, latestBuild, now: at('2024-06-01T12:00:00Z') })), NOTHING);
    assert.equal(decideTransition(input({ template, workspace, latestBuild, now: at('2024-06-02T00:01:00Z') })).transition, 'delete');
  });
});

describe('decideTransition: builds in progress', () => {
  it('skips a workspace whose latest job is still active, whatever else is due', () => {
    for (const jobStatus of ['pending', 'running', 'canceling'] as const) {
      const busy = input({
        ownerStatus: 'suspended',
        latestBuild: { jobStatus, jobCompletedAt: null, deadline: at('2024-06-05T10:00:00Z') },
        workspace: { lastUsedAt: at('2024-01-01T00:00:00Z') },
        template: { timeTilDormantMs: DAY },
      });
      assert.deepEqual(decideTransition(busy), NOTHING, jobStatus);
    }
  });
});
