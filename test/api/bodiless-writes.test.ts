import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { rawRequest } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** What a common HTTP library sends on a POST or PUT without data. */
const formWithoutBody = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' };

describe('writes without a body, as common HTTP libraries send them', () => {
  let test: TestDaemon;
  let ownerToken: string;
  let workspaceId: string;
  let memberId: string;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    const owner = await createOwner(test);
    ownerToken = owner.token ?? '';
    memberId = (await (await createMember(test, 'alice')).user()).id;
    const { template } = await createEchoTemplate(owner, 'bodiless', {});
    workspaceId = (await owner.createWorkspace('me', { name: 'dev', template_id: template.id })).id;
  });
  after(async () => test.close());

  const headers = (token: string) => ({ ...formWithoutBody, 'Service-Session-Token': token });

  it('suspends and activates a user', async () => {
    const suspended = await rawRequest(test.url, 'PUT', `/users/${memberId}/status/suspend`, { headers: headers(ownerToken), body: '' });
    assert.equal(suspended.status, 200, JSON.stringify(suspended.body));
    assert.equal(suspended.body['status'], 'suspended');
    const active = await rawRequest(test.url, 'PUT', `/users/${memberId}/status/activate`, { headers: headers(ownerToken), body: '' });
    assert.equal(active.status, 200, JSON.stringify(active.body));
    assert.equal(active.body['status'], 'active');
  });

  it('marks a workspace favorite', async () => {
    const favorite = await rawRequest(test.url, 'PUT', `/workspaces/${workspaceId}/favorite`, { headers: headers(ownerToken), body: '' });
    assert.equal(favorite.status, 204, JSON.stringify(favorite.body));
  });

  it('reports use of a workspace with no body, whatever content type is claimed', async () => {
    for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
      const used = await rawRequest(test.url, 'POST', `/workspaces/${workspaceId}/usage`, {
        headers: { 'content-type': type, 'content-length': '0', 'Service-Session-Token': ownerToken },
        body: '',
      });
      assert.equal(used.status, 204, `${type}: ${JSON.stringify(used.body)}`);
    }
  });

  it('signs out', async () => {
    const loggedOut = await rawRequest(test.url, 'POST', '/users/logout', { headers: headers(ownerToken), body: '' });
    assert.equal(loggedOut.status, 200, JSON.stringify(loggedOut.body));
    const after = await rawRequest(test.url, 'GET', '/users/me', { headers: { 'Service-Session-Token': ownerToken } });
    assert.equal(after.status, 401);
  });

  it('still refuses a body of a type no route reads', async () => {
    const login = await rawRequest(test.url, 'POST', '/users/login', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40example.com&password=x',
    });
    assert.equal(login.status, 415);
  });
});
