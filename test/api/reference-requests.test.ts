import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { SESSION_TOKEN_HEADER } from '../../src/sdk/client-core.js';
import { createTar } from '../../src/lib/archive/index.js';
import { rawRequest } from '../helpers/expect-api-error.js';
import { createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

// Requests exactly as the reference's own dashboard pages send them: its create forms send `null`
// for "the default", and its insights page names the zone rather than an hour offset.
describe('requests the reference dashboard sends', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let headers: Record<string, string>;

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    headers = { [SESSION_TOKEN_HEADER]: owner.token ?? '', 'Content-Type': 'application/json' };
  });
  after(async () => await test.close());

  it('creates a user with user_status null as a dormant user', async () => {
    const organization = await rawRequest(test.url, 'GET', '/organizations/default', { headers });
    const body = {
      email: 'nullstatus@example.com',
      username: 'nullstatus',
      name: '',
      password: STRONG_PASSWORD,
      login_type: 'password',
      user_status: null,
      organization_ids: [organization.body['id']],
    };
    const answer = await rawRequest(test.url, 'POST', '/users', { headers, body: JSON.stringify(body) });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.body['status'], 'dormant');
  });

  it('creates a template with max_port_share_level and allow_user_cancel_workspace_jobs null as the defaults', async () => {
    const { id } = await owner.uploadFile(await createTar({ 'echo.json': '{}' }));
    const version = await owner.createTemplateVersion('default', { file_id: id });
    await owner.followTemplateVersionLogs(version.id, () => undefined);
    const body = {
      name: 'from-the-form',
      template_version_id: version.id,
      allow_user_cancel_workspace_jobs: null,
      max_port_share_level: null,
      disable_everyone_group_access: false,
      require_active_version: false,
    };
    const answer = await rawRequest(test.url, 'POST', '/organizations/default/templates', { headers, body: JSON.stringify(body) });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body['allow_user_cancel_workspace_jobs'], false);
    assert.equal(answer.body['max_port_share_level'], 'public');
  });

  it('counts user statuses in a named time zone, and still in an hour offset', async () => {
    const utc = await rawRequest(test.url, 'GET', '/insights/user-status-counts?timezone=UTC', { headers });
    assert.equal(utc.status, 200, JSON.stringify(utc.body));
    const kolkata = await rawRequest(test.url, 'GET', '/insights/user-status-counts?timezone=Asia%2FKolkata', { headers });
    assert.equal(kolkata.status, 200, JSON.stringify(kolkata.body));
    const dates = (answer: Record<string, unknown>) =>
      (answer['status_counts'] as Record<string, { date: string }[]>)['active']?.map((point) => point.date) ?? [];
    assert.ok(dates(utc.body).length > 0);
    assert.ok(
      dates(utc.body).every((date) => date.endsWith('T00:00:00Z')),
      dates(utc.body).join(' '),
    );
    // Midnight in Kolkata, said in its own offset: the zone was used, not ignored.
    assert.ok(
      dates(kolkata.body).every((date) => date.endsWith('T00:00:00+05:30')),
      dates(kolkata.body).join(' '),
    );
    const offset = await rawRequest(test.url, 'GET', '/insights/user-status-counts?tz_offset=2', { headers });
    assert.equal(offset.status, 200);
    assert.ok(
      dates(offset.body).every((date) => date.endsWith('T00:00:00+02:00')),
      dates(offset.body).join(' '),
    );
    const unknown = await rawRequest(test.url, 'GET', '/insights/user-status-counts?timezone=Nowhere%2FAtAll', { headers });
    assert.equal(unknown.status, 400);
    assert.match(JSON.stringify(unknown.body), /timezone/);
  });
});
