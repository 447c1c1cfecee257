import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { CliUser } from '../helpers/run-cli.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const TOKEN = 'cli-insights-agent';

describe('cove insights', () => {
  let test: TestDaemon;
  const admin = new CliUser();
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    const owner = await createOwner(test);
    const login = await admin.run('login', test.url, '--token', owner.token ?? '');
    assert.equal(login.code, 0, login.stderr);
    const { template } = await createEchoTemplate(owner, 'insight-box', {
      apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', auth_token: TOKEN }] }] },
    });
    const workspace = await owner.createWorkspace('me', { name: 'dev', template_id: template.id });
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    // The agent reports an open terminal: a minute of use of the template by its owner.
    const socket = new WebSocket(`${test.url.replace(/^http/, 'ws')}/api/v2/workspaceagents/me/rpc`, {
      headers: { 'Service-Session-Token': TOKEN },
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('message', () => resolve());
      socket.once('error', reject);
    });
    const counts = { session_count_ssh: 0, session_count_reconnecting_pty: 1, session_count_vscode: 0, session_count_jetbrains: 0 };
    socket.send(JSON.stringify({ type: 'stats', rx_bytes: 0, tx_bytes: 0, ...counts, connection_median_latency_ms: 8 }));
    await eventually(async () => assert.equal((await owner.insightsDaus(0)).entries.length, 1));
    socket.close();
  });
  after(async () => test.close());

  it('prints daily active users as a table without a terminal, and JSON for scripts', async () => {
    const table = await admin.run('insights', 'daus', '--tz-offset', '0');
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^DATE\s+USERS\n2026-01-05\s+1\n$/);
    const json = await admin.run('insights', 'daus', '--tz-offset', '0', '-o', 'json');
    assert.deepEqual(JSON.parse(json.stdout), { entries: [{ date: '2026-01-05', amount: 1 }], tz_hour_offset: 0 });
  });

  it('prints template usage and user activity for a range', async () => {
    const range = ['--start', '2026-01-04', '--end', '2026-01-05T11:00:00Z', '--tz-offset', '0'];
    const templates = await admin.run('insights', 'templates', ...range, '--template', 'insight-box');
    assert.equal(templates.code, 0, templates.stderr);
    assert.match(templates.stdout, /^1 active user\(s\) from 2026-01-04T00:00:00Z to 2026-01-05T11:00:00Z/);
    assert.match(templates.stdout, /2026-01-04\s+0\n2026-01-05\s+1\n/);
    assert.match(templates.stdout, /Web Terminal\s+reconnecting-pty\s+builtin\s+1m/);
    const json = await admin.run('insights', 'templates', ...range, '--interval', 'day', '-o', 'json');
    assert.equal(JSON.parse(json.stdout).report.active_users, 1);

    const users = await admin.run('insights', 'users', ...range);
    assert.equal(users.code, 0, users.stderr);
    assert.match(users.stdout, /owner\s+1m\s+8\.0ms\s+8\.0ms/);

    const refused = await admin.run('insights', 'templates', '--start', '2026-01-05', '--end', '2026-01-04', '--tz-offset', '0');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /end_time/);
  });
});
