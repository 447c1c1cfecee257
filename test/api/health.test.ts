import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../src/sdk/api-error.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { HealthReport } from '../../src/sdk/wire/index.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { wireProblems } from '../helpers/wire-schema.js';

describe('GET /debug/health with a provisioner daemon running', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    // A loaded machine running PostgreSQL can take 15ms a round trip; EDB02 has a test of its own.
    test = await startTestDaemon({ flags: { provisionerDaemons: '1', healthCheckThresholdDatabaseMs: '1s' } });
    owner = await createOwner(test);
    // The built-in daemon registers once it has connected.
    for (let i = 0; i < 200 && (await owner.provisionerDaemons(test.daemon.identity.defaultOrganization.id)).length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });
  after(async () => test.close());

  it('checks every section for real and finds them all healthy', async () => {
    const report = await owner.healthReport({ force: true });
    assert.deepEqual(wireProblems(HealthReport, report), []);
    assert.equal(report.healthy, true, JSON.stringify(report, null, 2));
    assert.equal(report.severity, 'ok');
    assert.equal(report.access_url.reachable, true);
    assert.equal(report.access_url.status_code, 200);
    assert.equal(report.access_url.healthz_response, 'OK');
    assert.equal(report.database.reachable, true);
    assert.match(report.database.latency, /^\d+(\.\d+)?(ns|µs|ms|s)$/);
    assert.equal(report.database.threshold_ms, 1000);
    assert.equal(report.websocket.code, 101);
    const region = report.derp.regions['999'];
    const node = region?.node_reports[0];
    assert.equal(node?.can_exchange_messages, true, JSON.stringify(node));
    assert.equal(node?.uses_websocket, true);
    assert.deepEqual(node?.stun, { Enabled: false, CanSTUN: false, Error: null });
    assert.match(node?.round_trip_ping ?? '', /\d/);
    assert.equal(report.provisioner_daemons.items.length, 1);
    assert.deepEqual(report.provisioner_daemons.items[0]?.warnings, []);
    assert.deepEqual(report.workspace_proxy.workspace_proxies.regions, []);
    assert.equal(report.workspace_proxy.healthy, true);
  });

  it('serves the last report until forced, then checks again', async () => {
    const first = await owner.healthReport({ force: true });
    // The daemon's last heartbeat is now older than the stale interval, as the moved clock sees it.
    test.clock.advance(5 * 60_000);
    const cached = await owner.healthReport();
    assert.equal(cached.time, first.time);
    assert.equal(cached.provisioner_daemons.severity, 'ok');
    const fresh = await owner.healthReport({ force: true });
    assert.notEqual(fresh.time, first.time);
    assert.equal(fresh.provisioner_daemons.severity, 'error');
  });
});

describe('GET /debug/health without provisioner daemons, and its settings', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '0', healthCheckThresholdDatabaseMs: '1s' } });
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('reports no active provisioner daemons as EPD01, an error', async () => {
    const report = await owner.healthReport({ force: true });
    assert.equal(report.healthy, false);
    assert.equal(report.severity, 'error');
    assert.equal(report.provisioner_daemons.severity, 'error');
    assert.deepEqual(
      report.provisioner_daemons.warnings.map((w) => w.code),
      ['EPD01'],
    );
    assert.equal(report.database.healthy, true);
  });

  it('keeps a dismissed section out of the overall result, and stores the dismissal', async () => {
    assert.deepEqual(await owner.healthSettings(), { dismissed_healthchecks: [] });
    const saved = await owner.updateHealthSettings({ dismissed_healthchecks: ['ProvisionerDaemons'] });
    assert.deepEqual(saved, { dismissed_healthchecks: ['ProvisionerDaemons'] });
    const report = await owner.healthReport();
    assert.equal(report.provisioner_daemons.dismissed, true);
    assert.equal(report.provisioner_daemons.severity, 'error');
    assert.equal(report.database.dismissed, false);
    assert.equal(report.healthy, true);
    assert.equal(report.severity, 'ok');
    const rows = await test.daemon.store.db.selectFrom('health_check_dismissals').select('section').execute();
    assert.deepEqual(rows, [{ section: 'ProvisionerDaemons' }]);
    await owner.updateHealthSettings({ dismissed_healthchecks: [] });
    assert.equal((await owner.healthReport()).healthy, false);
  });

  it('refuses a section name it does not know with 400 naming the field', async () => {
    await assert.rejects(
      owner.request('PUT', '/debug/health/settings', { body: { dismissed_healthchecks: ['Nope'] } }),
      (error: unknown) =>
        error instanceof ApiError && error.status === 400 && JSON.stringify(error.body).includes('dismissed_healthchecks'),
    );
  });
});

describe('GET /debug/health when things are wrong', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    // Nothing listens on port 1: the access URL leads nowhere. A threshold of 0 makes any round trip slow.
    test = await startTestDaemon({ flags: { accessUrl: 'http://127.0.0.1:1', healthCheckThresholdDatabaseMs: '0' } });
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('reports the codes of the reference: EACS03, EWS01, a relay that carried nothing, EDB02', async () => {
    const report = await owner.healthReport({ force: true });
    assert.deepEqual(wireProblems(HealthReport, report), []);
    assert.equal(report.access_url.reachable, false);
    assert.equal(report.access_url.severity, 'error');
    assert.match(report.access_url.error ?? '', /^EACS03: Could not fetch http:\/\/127\.0\.0\.1:1\/healthz/);
    assert.equal(report.websocket.severity, 'error');
    assert.match(report.websocket.error ?? '', /^EWS01: /);
    const node = report.derp.regions['999']?.node_reports[0];
    assert.equal(node?.can_exchange_messages, false);
    assert.equal(report.derp.healthy, false);
    assert.equal(node?.client_errs[0]?.length, 1);
    assert.equal(report.database.severity, 'warning');
    assert.equal(report.database.healthy, true);
    assert.deepEqual(
      report.database.warnings.map((w) => w.code),
      ['EDB02'],
    );
    assert.equal(report.healthy, false);
    assert.equal(report.severity, 'error');
  });

  it('warns of a provisioner daemon of another version (EPD02) and API version (EPD03)', async () => {
    const now = test.clock.now().toISOString();
    await test.daemon.store.db
      .insertInto('provisioner_daemons')
      .values({
        id: '6f0c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f',
        organization_id: test.daemon.identity.defaultOrganization.id,
        name: 'old-daemon',
        provisioners: '["echo"]',
        tags: '{}',
        key_id: null,
        version: '9.4.1',
        api_version: '2.0',
        created_at: now,
        last_seen_at: now,
      })
      .execute();
    const section = (await owner.healthReport({ force: true })).provisioner_daemons;
    assert.equal(section.severity, 'warning');
    assert.equal(section.healthy, true);
    assert.deepEqual(
      section.warnings.map((w) => w.code),
      ['EPD02', 'EPD03'],
    );
    assert.equal(section.items[0]?.provisioner_daemon.name, 'old-daemon');
    assert.deepEqual(
      section.items[0]?.warnings.map((w) => w.code),
      ['EPD02', 'EPD03'],
    );
  });
});
