import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_DURATION_MS } from '../../src/lib/duration.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template } from '../../src/sdk/wire/index.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { rawRequest } from '../helpers/expect-api-error.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const DURATIONS = ['default_ttl_ms', 'activity_bump_ms', 'failure_ttl_ms', 'time_til_dormant_ms', 'time_til_dormant_autodelete_ms'];

describe('durations the API accepts are bounded', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let template: Template;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    template = (await createEchoTemplate(owner, 'bounded', {})).template;
  });
  after(async () => test.close());

  for (const field of DURATIONS) {
    it(`refuses ${field}: 1e308 with 400 naming the field and the limit`, async () => {
      const answer = await rawRequest(test.url, 'PATCH', `/templates/${template.id}`, {
        headers: { 'content-type': 'application/json', 'Service-Session-Token': owner.token ?? '' },
        body: `{"${field}": 1e308}`,
      });
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      const validations = answer.body['validations'] as { field: string; detail: string }[];
      assert.ok(
        validations.some((v) => v.field === field && v.detail.includes(String(MAX_DURATION_MS))),
        JSON.stringify(validations),
      );
    });
  }

  it('builds and makes dormant at the longest durations allowed', async () => {
    await owner.updateTemplate(template.id, {
      default_ttl_ms: MAX_DURATION_MS,
      activity_bump_ms: MAX_DURATION_MS,
      time_til_dormant_autodelete_ms: MAX_DURATION_MS,
    });
    const workspace = await owner.createWorkspace('me', { name: 'long', template_id: template.id });
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    const built = await owner.workspace(workspace.id);
    assert.equal(built.latest_build.status, 'running');
    assert.ok(built.latest_build.deadline, 'a deadline ten years out');
    const dormant = await rawRequest(test.url, 'PUT', `/workspaces/${workspace.id}/dormant`, {
      headers: { 'content-type': 'application/json', 'Service-Session-Token': owner.token ?? '' },
      body: '{"dormant": true}',
    });
    assert.equal(dormant.status, 200, JSON.stringify(dormant.body));
  });
});
