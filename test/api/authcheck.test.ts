import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('POST /authcheck', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;
  let ownerId: string;
  let memberId: string;
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
    member = await createMember(test, 'member');
    ownerId = (await owner.user('me')).id;
    memberId = (await member.user('me')).id;
  });
  after(async () => test.close());

  it('answers each named check for the caller', async () => {
    const orgId = test.daemon.identity.defaultOrganization.id;
    const checks = {
      readConfig: { action: 'read', object: { resource_type: 'deployment_config' } },
      createTemplateAnywhere: { action: 'create', object: { resource_type: 'template', any_org: true } },
      ownWorkspace: { action: 'create', object: { resource_type: 'workspace', owner_id: 'me', organization_id: orgId } },
      readOwner: { action: 'read', object: { resource_type: 'user', resource_id: ownerId } },
      readSelf: { action: 'update_personal', object: { resource_type: 'user', resource_id: memberId } },
      nonsense: { action: 'fly', object: { resource_type: 'dragon' } },
    };
    assert.deepEqual(await member.authCheck(checks), {
      readConfig: false,
      createTemplateAnywhere: false,
      ownWorkspace: true,
      readOwner: false,
      readSelf: true,
      nonsense: false,
    });
    const asOwner = await owner.authCheck(checks);
    assert.equal(asOwner.readConfig, true);
    assert.equal(asOwner.createTemplateAnywhere, true);
    assert.equal(asOwner.readOwner, true);
  });

  it('refuses malformed checks with 400', async () => {
    await expectApiError(member.authCheck({ bad: { action: 'read', object: { resource_type: 'user', resource_id: 'nope' } } }), 400);
    await expectApiError(member.authCheck({ bad: { action: 'read', object: { resource_type: 'license', resource_id: memberId } } }), 400);
    const many = Object.fromEntries(
      Array.from({ length: 11 }, (_, i) => [`c${i}`, { action: 'read', object: { resource_type: 'user', resource_id: memberId } }]),
    );
    const error = await expectApiError(member.authCheck(many), 400);
    assert.match(error.message, /found 11 usages/);
    await expectApiError(test.anonymous.authCheck({}), 401);
  });
});
