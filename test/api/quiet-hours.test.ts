import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import type { WorkspaceBuild } from '../../src/sdk/wire/index.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { TestLicenseIssuer } from '../helpers/licenses.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const EVERY_DAY = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

describe("quiet hours: each user's daily window for required workspace stops", () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;
  let ownerId: string;
  let memberId: string;

  before(async () => {
    const issuer = new TestLicenseIssuer();
    test = await startTestDaemon({ flags: { provisionerDaemons: '1', licensePublicKeys: issuer.trustEntry } });
    owner = await createOwner(test);
    member = await createMember(test, 'member');
    ownerId = (await owner.user('me')).id;
    memberId = (await member.user('me')).id;
    // The autostop requirement, which quiet hours place in the day, is advanced template scheduling.
    await owner.addLicense(await issuer.license({ now: test.clock.now(), features: { advanced_template_scheduling: 1 } }));
  });
  after(async () => test.close());

  it('the deployment options appear in /deployment/config under user_quiet_hours_schedule', async () => {
    const { config } = await owner.deploymentConfig();
    assert.deepEqual((config as Record<string, unknown>)['user_quiet_hours_schedule'], {
      default_schedule: 'CRON_TZ=UTC 0 0 * * *',
      allow_user_custom: true,
    });
  });

  it('a user who chose nothing has the deployment default, and may choose', async () => {
    // The test clock stands at 2026-01-05T10:00Z.
    assert.deepEqual(await member.userQuietHoursSchedule(), {
      raw_schedule: 'CRON_TZ=UTC 0 0 * * *',
      user_set: false,
      user_can_set: true,
      time: '00:00',
      timezone: 'UTC',
      next: '2026-01-06T00:00:00.000Z',
    });
  });

  it('PUT stores a daily schedule in its timezone, and GET reads it back', async () => {
    const expected = {
      raw_schedule: 'CRON_TZ=Europe/Berlin 30 2 * * *',
      user_set: true,
      user_can_set: true,
      time: '02:30',
      timezone: 'Europe/Berlin',
      // Berlin is an hour ahead of UTC in January.
      next: '2026-01-06T01:30:00.000Z',
    };
    assert.deepEqual(await member.updateUserQuietHoursSchedule({ schedule: 'CRON_TZ=Europe/Berlin 30 2 * * *' }), expected);
    assert.deepEqual(await member.userQuietHoursSchedule(), expected);
    assert.deepEqual(await member.userQuietHoursSchedule(memberId), expected);
    // Another user's choice is theirs alone.
    assert.equal((await owner.userQuietHoursSchedule()).user_set, false);
  });

  it('PUT refuses what is not one daily time in a real timezone, with a validation, and keeps the stored one', async () => {
    const refusals: [string, RegExp][] = [
      ['garbage', /parse daily schedule/],
      ['CRON_TZ=Nowhere/Land 0 2 * * *', /Nowhere\/Land/],
      ['CRON_TZ=UTC 0 2 * * 1', /day-of-week/],
      ['CRON_TZ=UTC 0 2 1 * *', /day-of-month/],
      ['CRON_TZ=UTC 0 0,12 * * *', /more than one time/],
      ['CRON_TZ=UTC 0-30 0 * * *', /more than one time/],
      ['CRON_TZ=UTC 61 0 * * *', /parse daily schedule/],
    ];
    for (const [schedule, detail] of refusals) {
      const error = await expectApiError(member.updateUserQuietHoursSchedule({ schedule }), 400);
      const validation = error.body.validations?.find((v) => v.field === 'schedule');
      assert.ok(validation, `a validation on schedule for ${schedule}`);
      assert.match(validation.detail, detail, schedule);
    }
    assert.equal((await member.userQuietHoursSchedule()).raw_schedule, 'CRON_TZ=Europe/Berlin 30 2 * * *');
  });

  it("a member may not change another user's quiet hours; an owner may change a member's", async () => {
    await expectApiError(member.updateUserQuietHoursSchedule({ schedule: 'CRON_TZ=UTC 0 3 * * *' }, ownerId), 404);
    assert.equal((await owner.userQuietHoursSchedule()).user_set, false);

    const set = await owner.updateUserQuietHoursSchedule({ schedule: 'CRON_TZ=Asia/Tokyo 0 4 * * *' }, memberId);
    assert.deepEqual(
      [set.raw_schedule, set.time, set.timezone, set.user_set],
      ['CRON_TZ=Asia/Tokyo 0 4 * * *', '04:00', 'Asia/Tokyo', true],
    );
    assert.equal((await member.userQuietHoursSchedule()).raw_schedule, 'CRON_TZ=Asia/Tokyo 0 4 * * *');
    assert.equal((await owner.userQuietHoursSchedule(memberId)).next, '2026-01-05T19:00:00.000Z');
  });

  it('the change is in the audit log as a write of the user', async () => {
    const { audit_logs: logs } = await owner.auditLogs({ q: 'resource_type:user action:write' });
    const entry = logs.find((log) => log.resource_id === memberId && JSON.stringify(log.diff).includes('quiet_hours_schedule'));
    assert.ok(entry, 'an audit entry with the quiet hours change');
  });

  it('an empty schedule goes back to the deployment default', async () => {
    const reset = await member.updateUserQuietHoursSchedule({ schedule: '' });
    assert.deepEqual([reset.raw_schedule, reset.user_set, reset.time], ['CRON_TZ=UTC 0 0 * * *', false, '00:00']);
    assert.equal((await member.userQuietHoursSchedule()).user_set, false);
  });

  it("a template's autostop requirement stops the workspace at its owner's quiet hours", async () => {
    const { template } = await createEchoTemplate(
      owner,
      'required-stop',
      {},
      {
        settings: { autostop_requirement: { days_of_week: EVERY_DAY, weeks: 1 } },
        files: { 'name.txt': 'required-stop' },
      },
    );
    const settled = async (build: WorkspaceBuild): Promise<WorkspaceBuild> => {
      await owner.followWorkspaceBuildLogs(build.id, () => undefined);
      return owner.workspaceBuild(build.id);
    };

    // At 10:00 UTC, quiet hours at 22:00 UTC are far enough off to be today's stop.
    await owner.updateUserQuietHoursSchedule({ schedule: 'CRON_TZ=UTC 0 22 * * *' });
    const evening = await owner.createWorkspace('me', { name: 'evening', template_id: template.id });
    assert.equal((await settled(evening.latest_build)).max_deadline, '2026-01-05T22:00:00.000Z');

    // Back on the default (midnight UTC), today's window has passed: the stop is tomorrow's midnight.
    await owner.updateUserQuietHoursSchedule({ schedule: '' });
    const midnight = await owner.createWorkspace('me', { name: 'midnight', template_id: template.id });
    assert.equal((await settled(midnight.latest_build)).max_deadline, '2026-01-06T00:00:00.000Z');

    // Another zone: 20:00 in New York is 01:00 UTC the next day.
    await owner.updateUserQuietHoursSchedule({ schedule: 'CRON_TZ=America/New_York 0 20 * * *' });
    const newYork = await owner.createWorkspace('me', { name: 'new-york', template_id: template.id });
    assert.equal((await settled(newYork.latest_build)).max_deadline, '2026-01-06T01:00:00.000Z');
  });
});

describe('quiet hours when the deployment does not let users choose', () => {
  let test: TestDaemon;
  let member: CoveClient;

  before(async () => {
    test = await startTestDaemon({
      flags: { allowCustomQuietHours: 'false', defaultQuietHoursSchedule: 'CRON_TZ=America/Chicago 0 3 * * *' },
    });
    await createOwner(test);
    member = await createMember(test, 'member');
  });
  after(async () => test.close());

  it('everyone has the default, and PUT is forbidden', async () => {
    const expected = {
      raw_schedule: 'CRON_TZ=America/Chicago 0 3 * * *',
      user_set: false,
      user_can_set: false,
      time: '03:00',
      timezone: 'America/Chicago',
      next: '2026-01-06T09:00:00.000Z',
    };
    assert.deepEqual(await member.userQuietHoursSchedule(), expected);
    const error = await expectApiError(member.updateUserQuietHoursSchedule({ schedule: 'CRON_TZ=UTC 0 1 * * *' }), 403);
    assert.match(error.body.message, /quiet hours/);
    assert.deepEqual(await member.userQuietHoursSchedule(), expected);
  });

  it('serve refuses a default schedule that is not one daily time', async () => {
    for (const schedule of ['CRON_TZ=UTC 0 0 * * 1', 'CRON_TZ=Nowhere/Land 0 0 * * *', 'not a schedule', '0 0,12 * * *']) {
      await assert.rejects(startTestDaemon({ flags: { defaultQuietHoursSchedule: schedule } }), /--default-quiet-hours-schedule/, schedule);
    }
  });
});
