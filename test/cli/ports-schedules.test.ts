import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoveClient } from '../../src/sdk/client.js';
import type { PortShare, Template } from '../../src/sdk/wire/index.js';
import { CliUser } from '../helpers/run-cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const ECHO = { apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main' }] }] } };

const TWO_AGENTS = { apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main' }, { name: 'side' }] }] } };

/** What `schedule ... -o json` prints. */
interface Summary {
  readonly workspace: string;
  readonly autostart_schedule: string | null;
  readonly next_start_at: string | null;
  readonly ttl_ms: number | null;
  readonly deadline: string | null;
}

describe('cove port and cove schedule', () => {
  let test: TestDaemon;
  let client: CoveClient;
  const admin = new CliUser();
  const work = mkdtempSync(join(tmpdir(), 'cove-ports-schedules-'));

  async function pushTemplate(name: string, echo: unknown): Promise<void> {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'echo.json'), JSON.stringify(echo));
    const pushed = await admin.run('templates', 'push', dir, '-y');
    assert.equal(pushed.code, 0, pushed.stderr + pushed.stdout);
  }

  async function schedule(...args: string[]): Promise<Summary> {
    const result = await admin.run('schedule', ...args, '-o', 'json');
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as Summary;
  }

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '2' } });
    // `schedule extend` counts from the local clock, so the daemon's clock must agree with it.
    test.clock.set(new Date());
    await admin.signUpFirstUser(test.url, { email: 'a@example.com', username: 'admin' });
    client = new CoveClient({ url: test.url, token: admin.savedToken() });
    await pushTemplate('echo', ECHO);
    const created = await admin.run('create', 'dev', '--template', 'echo', '--ttl', '1h', '-y');
    assert.equal(created.code, 0, created.stderr + created.stdout);
  });
  after(async () => test.close());

  it('shares a port up to the template maximum, lists it and unshares it', async () => {
    // Templates cap nothing by default; this one is made to cap everything first.
    const lowered = await admin.run('templates', 'edit', 'echo', '--max-port-share-level', 'owner');
    assert.equal(lowered.code, 0, lowered.stderr);
    const refused = await admin.run('port', 'share', 'dev', '8080');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Max level is 'owner'/);
    assert.match(refused.stderr, /hint: .*max_port_share_level.*"cove templates edit echo --max-port-share-level authenticated"/);

    const badLevel = await admin.run('templates', 'edit', 'echo', '--max-port-share-level', 'everyone');
    assert.equal(badLevel.code, 1);
    assert.match(badLevel.stderr, /not a share level/);
    const raised = await admin.run('templates', 'edit', 'echo', '--max-port-share-level', 'authenticated', '-o', 'json');
    assert.equal(raised.code, 0, raised.stderr);
    assert.equal((JSON.parse(raised.stdout) as Template).max_port_share_level, 'authenticated');

    const shared = await admin.run('port', 'share', 'dev', '8080', '--level', 'authenticated');
    assert.equal(shared.code, 0, shared.stderr);
    assert.equal(shared.stdout, 'Port 8080 of dev is shared with authenticated users.\n');
    const tooWide = await admin.run('port', 'share', 'dev', '8081', '--level', 'public');
    assert.equal(tooWide.code, 1);
    assert.match(tooWide.stderr, /Max level is 'authenticated'/);
    assert.match(tooWide.stderr, /--max-port-share-level public/);

    const https = await admin.run('port', 'share', 'admin/dev', '8443', '--protocol', 'https', '--agent', 'main', '-o', 'json');
    assert.equal(https.code, 0, https.stderr);
    assert.deepEqual(JSON.parse(https.stdout), {
      workspace_id: (await client.workspaceByOwnerAndName('me', 'dev')).id,
      agent_name: 'main',
      port: 8443,
      share_level: 'authenticated',
      protocol: 'https',
    });

    const listed = await admin.run('port', 'list', 'dev', '-o', 'json');
    assert.equal(listed.code, 0, listed.stderr);
    const { shares } = JSON.parse(listed.stdout) as { shares: PortShare[] };
    assert.deepEqual(shares.map((s) => [s.agent_name, s.port, s.protocol, s.share_level]).sort(), [
      ['main', 8080, 'http', 'authenticated'],
      ['main', 8443, 'https', 'authenticated'],
    ]);
    const table = await admin.run('port', 'ls', 'dev');
    assert.match(
      table.stdout,
      /^AGENT\s+PORT\s+PROTOCOL\s+LEVEL\nmain\s+8080\s+http\s+authenticated\nmain\s+8443\s+https\s+authenticated\n$/,
    );

    const unshared = await admin.run('port', 'unshare', 'dev', '8080');
    assert.equal(unshared.code, 0, unshared.stderr);
    assert.equal(unshared.stdout, 'Port 8080 of dev is no longer shared.\n');
    const again = await admin.run('port', 'unshare', 'dev', '8080');
    assert.equal(again.code, 1);
    assert.match(again.stderr, /Port 8080 of dev is not shared/);
    assert.deepEqual(
      (await client.portShares((await client.workspaceByOwnerAndName('me', 'dev')).id)).shares.map((s) => s.port),
      [8443],
    );
  });

  it('refuses bad ports, levels and ambiguous agents before asking the API', async () => {
    const port = await admin.run('port', 'share', 'dev', 'http');
    assert.equal(port.code, 1);
    assert.match(port.stderr, /"http" is not a port/);
    const owner = await admin.run('port', 'share', 'dev', '8080', '--level', 'owner');
    assert.equal(owner.code, 1);
    assert.match(owner.stderr, /cove port unshare/);
    const agent = await admin.run('port', 'share', 'dev', '8080', '--agent', 'nope');
    assert.equal(agent.code, 1);
    assert.match(agent.stderr, /no agent "nope"[^]*Its agents: main/);

    await pushTemplate('pair', TWO_AGENTS);
    assert.equal((await admin.run('create', 'pair', '-t', 'pair', '-y')).code, 0);
    const ambiguous = await admin.run('port', 'share', 'pair', '8080');
    assert.equal(ambiguous.code, 1);
    assert.match(ambiguous.stderr, /several agents: main, side/);
    assert.match(ambiguous.stderr, /--agent NAME/);
    const empty = await admin.run('port', 'list', 'pair');
    assert.match(empty.stdout, /No port of pair is shared/);
  });

  it('sets, shows and clears the autostart schedule and the stop timer, and extends the deadline', async () => {
    const initial = await schedule('show', 'dev');
    assert.equal(initial.workspace, 'admin/dev');
    assert.equal(initial.autostart_schedule, null);
    assert.equal(initial.ttl_ms, 3_600_000);
    assert.ok(initial.deadline, 'a workspace started with --ttl has a deadline');

    const started = await admin.run('schedule', 'start', 'dev', 'CRON_TZ=UTC 30 9 * * 1-5');
    assert.equal(started.code, 0, started.stderr);
    assert.match(started.stdout, /^Workspace "dev" starts on "CRON_TZ=UTC 30 9 \* \* 1-5"; next at \S+ \S+Z\.\n$/);
    const shown = await schedule('show', 'dev');
    assert.equal(shown.autostart_schedule, 'CRON_TZ=UTC 30 9 * * 1-5');
    assert.ok(shown.next_start_at);
    const next = new Date(shown.next_start_at);
    assert.equal(next.getUTCHours(), 9);
    assert.equal(next.getUTCMinutes(), 30);
    assert.ok(next.getUTCDay() >= 1 && next.getUTCDay() <= 5, 'a weekday');
    const table = await admin.run('schedule', 'show', 'dev');
    assert.match(
      table.stdout,
      /^workspace: {3}admin\/dev\nautostart: {3}CRON_TZ=UTC 30 9 \* \* 1-5\nnext start: {2}\S+ \S+Z\nstops after: 1h\nstops at: {4}\S+ \S+Z\n$/,
    );

    const badCron = await admin.run('schedule', 'start', 'dev', 'CRON_TZ=UTC 30 9 *');
    assert.equal(badCron.code, 1);
    assert.match(badCron.stderr, /Invalid autostart schedule: .*5 fields/);
    assert.match(badCron.stderr, /hint: Write it as TIME \[DAYS\] \[ZONE\]/);
    const badTime = await admin.run('schedule', 'start', 'dev', 'soon');
    assert.equal(badTime.code, 1);
    assert.match(badTime.stderr, /Start time must be in the format hh:mm\[am\|pm\] or HH:MM, not "soon"/);

    const stopped = await admin.run('schedule', 'stop', 'dev', '2h');
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(stopped.stdout, 'Workspace "dev" stops 2h after each start, from its next start on.\n');
    assert.equal((await schedule('show', 'dev')).ttl_ms, 2 * 3_600_000);
    const badTtl = await admin.run('schedule', 'stop', 'dev', 'soon');
    assert.equal(badTtl.code, 1);
    assert.match(badTtl.stderr, /Stop timer "soon" is not a duration/);

    const before = Date.now();
    const extended = await schedule('extend', 'dev', '3h');
    assert.ok(extended.deadline);
    const deadline = Date.parse(extended.deadline);
    assert.ok(
      deadline >= before + 3 * 3_600_000 - 1000 && deadline <= Date.now() + 3 * 3_600_000,
      `deadline ${extended.deadline} is 3h from now`,
    );
    const extendedText = await admin.run('schedule', 'override-stop', 'dev', '4h');
    assert.equal(extendedText.code, 0, extendedText.stderr);
    assert.match(extendedText.stdout, /^Workspace "dev" now stops at \S+ \S+Z\.\n$/);
    const tooSoon = await admin.run('schedule', 'extend', 'dev', '5m');
    assert.equal(tooSoon.code, 1);
    assert.match(tooSoon.stderr, /at least 30 minutes in the future/);

    const manualStart = await admin.run('schedule', 'start', 'dev', 'manual');
    assert.equal(manualStart.code, 0, manualStart.stderr);
    assert.equal(manualStart.stdout, 'Workspace "dev" no longer starts on a schedule.\n');
    const manualStop = await admin.run('schedule', 'stop', 'dev', 'manual');
    assert.equal(manualStop.code, 0, manualStop.stderr);
    const cleared = await schedule('show', 'dev');
    assert.equal(cleared.autostart_schedule, null);
    assert.equal(cleared.next_start_at, null);
    assert.equal(cleared.ttl_ms, null);
    assert.equal(cleared.deadline, null, 'turning autostop off lifts the current deadline');

    const noDeadline = await admin.run('schedule', 'extend', 'dev', '2h');
    assert.equal(noDeadline.code, 1);
    assert.match(noDeadline.stderr, /has no deadline to extend/);
    assert.match(noDeadline.stderr, /cove schedule stop dev 8h/);
  });

  it('takes TIME [DAYS] [ZONE] schedules as the reference does and stores them as cron', async () => {
    const cases: [string[], Record<string, string>, string][] = [
      [['9:30AM', 'Mon-Fri', 'Europe/Dublin'], {}, 'CRON_TZ=Europe/Dublin 30 9 * * Mon-Fri'],
      [['9:30 Mon-Fri'], { TZ: 'America/New_York' }, 'CRON_TZ=America/New_York 30 9 * * Mon-Fri'],
      [['09:30PM'], { TZ: 'Asia/Tokyo' }, 'CRON_TZ=Asia/Tokyo 30 21 * * *'],
      [['12am', 'sat,sun'], { TZ: 'UTC' }, 'CRON_TZ=UTC 0 0 * * sat,sun'],
      [['1715', 'Europe/Paris'], {}, 'CRON_TZ=Europe/Paris 15 17 * * *'],
      [['8:05', '1,3,5', 'UTC'], {}, 'CRON_TZ=UTC 5 8 * * 1,3,5'],
      [['CRON_TZ=UTC', '0', '7', '*', '*', '*'], {}, 'CRON_TZ=UTC 0 7 * * *'],
    ];
    for (const [words, env, stored] of cases) {
      const result = await admin.withEnv(env).run('schedule', 'start', 'dev', ...words, '-o', 'json');
      assert.equal(result.code, 0, `${words.join(' ')}: ${result.stderr}`);
      assert.equal((JSON.parse(result.stdout) as Summary).autostart_schedule, stored, words.join(' '));
    }
    const zone = await admin.run('schedule', 'start', 'dev', '9:30', 'Mon-Fri', 'Mars/Olympus');
    assert.equal(zone.code, 1);
    assert.match(zone.stderr, /Invalid timezone "Mars\/Olympus" specified: a valid IANA timezone is required/);
    const days = await admin.run('schedule', 'start', 'dev', '9:30', 'Mon-Fry', 'UTC');
    assert.equal(days.code, 1);
    assert.match(days.stderr, /"Mon-Fry" is not a set of days/);
    const hour = await admin.run('schedule', 'start', 'dev', '13:00PM');
    assert.equal(hour.code, 1);
    assert.match(hour.stderr, /Start time must be in the format/);
    const created = await admin.run('create', 'early', '--template', 'echo', '--start-at', '7:00AM Mon-Fri UTC', '-y', '-o', 'json');
    assert.equal(created.code, 0, created.stderr);
    assert.equal((await schedule('show', 'early')).autostart_schedule, 'CRON_TZ=UTC 0 7 * * Mon-Fri');
    assert.equal((await admin.run('schedule', 'start', 'dev', 'manual')).code, 0);
  });

  it('says when the template forbids custom schedules', async () => {
    const template = await client.templateByName('default', 'echo');
    await client.updateTemplate(template.id, { allow_user_autostart: false });
    const refused = await admin.run('schedule', 'start', 'dev', 'CRON_TZ=UTC 0 8 * * *');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Template "echo" does not allow autostart schedules/);
    assert.match(refused.stderr, /cove templates edit echo --allow-user-autostart/);
    await client.updateTemplate(template.id, { allow_user_autostart: true });
  });
});
