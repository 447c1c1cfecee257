import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import type { AgentHandle } from '../../src/agent/index.js';
import { openAgentStream } from '../../src/sdk/agent-streams.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace, type AgentWorkspace } from '../helpers/agent-workspace.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { expectApiError, rawRequest } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const DAY_MS = 86_400_000;

for (const dialect of TEST_DIALECTS) {
  describe(`insights from recorded use (${dialect})`, () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let alice: CoveClient;
    let bob: CoveClient;
    let home: string;
    let app: Server;
    const agents: AgentHandle[] = [];
    let aliceWorkspace: AgentWorkspace;
    let bobWorkspace: AgentWorkspace;

    before(async () => {
      app = createServer((_request, response) => response.end('hello from the app'));
      await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
      const appPort = (app.address() as AddressInfo).port;
      home = await mkdtemp(join(tmpdir(), 'cove-insights-'));
      test = await startTestDaemon({ database: dialect, flags: { provisionerDaemons: '1', sessionDurationMs: '720h' } });
      owner = await createOwner(test);
      alice = await createMember(test, 'alice');
      bob = await createMember(test, 'bob');
      aliceWorkspace = await startAgentWorkspace({
        url: test.url,
        owner,
        member: alice,
        token: 'insights-alice-agent',
        home,
        templateName: 'web-dev',
        agent: { apps: [{ slug: 'web', display_name: 'Web IDE', icon: '/icon/web.svg', url: `http://127.0.0.1:${appPort}/` }] },
      });
      agents.push(aliceWorkspace.agent);
      bobWorkspace = await startAgentWorkspace({
        url: test.url,
        owner,
        member: bob,
        token: 'insights-bob-agent',
        home,
        templateName: 'data-lab',
      });
      agents.push(bobWorkspace.agent);
    });
    after(async () => {
      for (const agent of agents) await agent.stop();
      await test?.close();
      app?.close();
      if (home) await rm(home, { recursive: true, force: true });
    });

    /** Alice opens her app through the app proxy; the proxy records the use in the background. */
    const aliceOpensApp = async () => {
      const page = await fetch(`${test.url}/@alice/dev/apps/web/`, { headers: { 'Service-Session-Token': alice.token ?? '' } });
      assert.equal(page.status, 200);
      assert.equal(await page.text(), 'hello from the app');
    };
    /** Bob opens an SSH stream to his agent through the relay. */
    const bobUsesSsh = async () => {
      const { socket } = await openAgentStream(bob, bobWorkspace.agentId, { service: 'ssh' });
      socket.close();
    };
    const today = () => test.clock.now().toISOString().slice(0, 10);
    const nextHour = () =>
      new Date(Math.floor(test.clock.now().getTime() / 3_600_000) * 3_600_000 + 3_600_000).toISOString().replace('.000', '');

    it('counts two users of two templates, through the app proxy and the relay, in the DAUs and the template report', async () => {
      await aliceOpensApp();
      await bobUsesSsh();
      const daus = await eventually(async () => {
        const answer = await owner.insightsDaus(0);
        assert.deepEqual(answer.entries, [{ date: today(), amount: 2 }]);
        return answer;
      });
      assert.equal(daus.tz_hour_offset, 0);

      const report = await owner.templateInsights({ start_time: `${today()}T00:00:00Z`, end_time: nextHour(), interval: 'day' });
      assert.equal(report.report.active_users, 2);
      assert.deepEqual(report.report.template_ids, [aliceWorkspace.templateId, bobWorkspace.templateId].sort());
      assert.deepEqual(
        report.interval_reports.map((interval) => [interval.start_time, interval.end_time, interval.active_users, interval.interval]),
        [[`${today()}T00:00:00Z`, nextHour(), 2, 'day']],
      );
      const usage = Object.fromEntries(report.report.apps_usage.map((entry) => [entry.slug, entry]));
      assert.deepEqual(Object.keys(usage), ['vscode', 'jetbrains', 'reconnecting-pty', 'ssh', 'sftp', 'web']);
      assert.equal(usage['ssh']?.seconds, 60);
      assert.deepEqual(usage['ssh']?.template_ids, [bobWorkspace.templateId]);
      assert.equal(usage['vscode']?.seconds, 0);
      assert.deepEqual(
        [usage['web']?.type, usage['web']?.display_name, usage['web']?.icon, usage['web']?.seconds, usage['web']?.times_used],
        ['app', 'Web IDE', '/icon/web.svg', 60, 1],
      );

      const onlyBob = await owner.templateInsights({
        start_time: `${today()}T00:00:00Z`,
        end_time: nextHour(),
        interval: 'day',
        template_ids: bobWorkspace.templateId,
      });
      // Each template's own daily active users: one user each, readable by its users.
      assert.deepEqual((await bob.templateDaus(bobWorkspace.templateId, 0)).entries, [{ date: today(), amount: 1 }]);
      assert.deepEqual((await owner.templateDaus(aliceWorkspace.templateId)).entries, [{ date: today(), amount: 1 }]);
      assert.equal(onlyBob.report.active_users, 1);
      assert.deepEqual(onlyBob.report.template_ids, [bobWorkspace.templateId]);
      assert.deepEqual(
        onlyBob.report.apps_usage.filter((entry) => entry.type === 'app'),
        [],
      );
    });

    it('moves with the daemon clock: a later day, intervals with and without users, activity per user', async () => {
      const firstDay = today();
      test.clock.advance(DAY_MS);
      await aliceOpensApp();
      // Agent reports with an open session (and a latency) count as that kind of use as well.
      const socket = new WebSocket(`${test.url.replace(/^http/, 'ws')}/api/v2/workspaceagents/me/rpc`, {
        headers: { 'Service-Session-Token': 'insights-alice-agent' },
      });
      await new Promise<void>((resolve, reject) => {
        socket.once('message', () => resolve());
        socket.once('error', reject);
      });
      socket.send(
        JSON.stringify({
          type: 'stats',
          rx_bytes: 0,
          tx_bytes: 0,
          session_count_ssh: 0,
          session_count_reconnecting_pty: 0,
          session_count_vscode: 1,
          session_count_jetbrains: 0,
          connection_median_latency_ms: 40,
        }),
      );
      const daus = await eventually(async () => {
        const answer = await owner.insightsDaus(0);
        assert.equal(answer.entries.length, 2);
        const report = await owner.templateInsights({ start_time: `${today()}T00:00:00Z`, end_time: nextHour(), interval: 'day' });
        assert.equal(report.report.apps_usage.find((entry) => entry.slug === 'vscode')?.seconds, 60);
        return answer;
      });
      socket.close();
      assert.deepEqual(daus.entries, [
        { date: firstDay, amount: 2 },
        { date: today(), amount: 1 },
      ]);

      const twoDays = await owner.templateInsights({ start_time: `${firstDay}T00:00:00Z`, end_time: nextHour(), interval: 'day' });
      assert.deepEqual(
        twoDays.interval_reports.map((interval) => interval.active_users),
        [2, 1],
      );
      assert.equal(twoDays.report.active_users, 2);
      // Two days apart: two separate runs of use of the app.
      assert.equal(twoDays.report.apps_usage.find((entry) => entry.slug === 'web')?.times_used, 2);

      const activity = await owner.userActivityInsights({ start_time: `${firstDay}T00:00:00Z`, end_time: nextHour() });
      assert.deepEqual(
        activity.report.users.map((user) => [user.username, user.seconds]),
        [
          ['alice', 120],
          ['bob', 60],
        ],
      );
      const latency = await owner.userLatencyInsights({ start_time: `${firstDay}T00:00:00Z`, end_time: nextHour() });
      assert.deepEqual(
        latency.report.users.map((user) => [user.username, user.latency_ms.p50, user.latency_ms.p95]),
        [
          ['alice', 40, 40],
          ['bob', -1, -1],
        ],
      );

      // In an offset of +14 hours, 10:00 UTC is already the next day.
      const east = await owner.insightsDaus(14);
      assert.equal(east.tz_hour_offset, 14);
      assert.deepEqual(
        east.entries.map((entry) => entry.amount),
        [2, 1],
      );
      assert.notEqual(east.entries[0]?.date, firstDay);
    });

    it('counts users by status at each midnight', async () => {
      const bobId = (await bob.user('me')).id;
      await owner.suspendUser(bobId);
      test.clock.advance(DAY_MS);
      const counts = await owner.userStatusCounts(0);
      const active = counts.status_counts['active'] ?? [];
      const suspended = counts.status_counts['suspended'] ?? [];
      assert.equal(active.length, 61);
      assert.deepEqual([active.at(-2)?.count, suspended.at(-2)?.count], [3, 0]);
      assert.deepEqual([active.at(-1)?.count, suspended.at(-1)?.count], [2, 1]);
      assert.match(active.at(-1)?.date ?? '', /T00:00:00Z$/);
      await owner.activateUser(bobId);
    });

    it('refuses bad ranges and offsets with 400 in the error shape', async () => {
      const headers = { 'Service-Session-Token': owner.token ?? '' };
      const missing = await rawRequest(test.url, 'GET', '/insights/daus', { headers });
      assert.equal(missing.status, 400);
      assert.equal(typeof missing.body['message'], 'string');
      assert.deepEqual(
        (missing.body['validations'] as { field: string }[]).map((v) => v.field),
        ['tz_offset'],
      );
      await expectApiError(owner.insightsDaus(15), 400, /tz_offset/);
      const unknown = await rawRequest(test.url, 'GET', '/insights/daus?tz_offset=0&extra=1', { headers });
      assert.equal(unknown.status, 400);

      const backwards = await expectApiError(
        owner.templateInsights({ start_time: `${today()}T00:00:00Z`, end_time: '2025-12-01T00:00:00Z', interval: 'day' }),
        400,
      );
      assert.equal(backwards.body.message, 'Query parameter has invalid value.');
      assert.deepEqual(backwards.body.validations, [
        { field: 'end_time', detail: 'Query param "end_time" must be after than "start_time"' },
      ]);
      await expectApiError(
        owner.userActivityInsights({ start_time: '2025-12-01T10:00:00Z', end_time: '2025-12-02T00:00:00Z' }),
        400,
        /start_time.*00:00:00/,
      );
      await expectApiError(
        owner.userLatencyInsights({ start_time: '2025-12-01T00:00:00Z', end_time: '2025-12-02T05:00:00Z' }),
        400,
        /end_time.*00:00:00/,
      );
      await expectApiError(
        owner.templateInsights({ start_time: '2025-12-01T00:00:00Z', end_time: '2030-01-01T00:00:00Z', interval: 'day' }),
        400,
        /must not be in the future/,
      );
      await expectApiError(
        owner.templateInsights({ start_time: 'yesterday', end_time: `${today()}T00:00:00Z`, interval: 'day' }),
        400,
        /valid date format/,
      );
      await expectApiError(
        owner.templateInsights({ start_time: '2025-12-01T00:00:00Z', end_time: '2025-12-10T00:00:00Z', interval: 'week' }),
        400,
        /at least 6 days/,
      );
      await expectApiError(
        owner.templateInsights({
          start_time: '2025-12-01T00:00:00Z',
          end_time: '2025-12-10T00:00:00Z',
          interval: 'day',
          template_ids: 'not-a-uuid',
        }),
        400,
        /template_ids/,
      );
      // A client in another offset: its midnight is the start, and the report speaks in its offset.
      const offset = await owner.templateInsights({
        start_time: '2025-12-01T00:00:00+02:00',
        end_time: '2025-12-15T00:00:00+02:00',
        interval: 'week',
      });
      assert.deepEqual(
        offset.interval_reports.map((interval) => [interval.start_time, interval.end_time]),
        [
          ['2025-12-01T00:00:00+02:00', '2025-12-08T00:00:00+02:00'],
          ['2025-12-08T00:00:00+02:00', '2025-12-15T00:00:00+02:00'],
        ],
      );
    });

    it('shows members no insights', async () => {
      const range = { start_time: `${today()}T00:00:00Z`, end_time: nextHour() };
      await expectApiError(alice.templateInsights({ ...range, interval: 'day' }), 403);
      await expectApiError(alice.insightsDaus(0), 403);
      await expectApiError(alice.userStatusCounts(0), 403);
      await expectApiError(alice.templateInsights({ ...range, interval: 'day', template_ids: aliceWorkspace.templateId }), 403);
    });
  });
}
