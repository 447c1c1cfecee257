import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authorize, orgScoped, siteObject, userObject } from '../../src/rbac/index.js';
import { SYSTEM_SUBJECTS, workspaceAgentSubject } from '../../src/rbac/system-subjects.js';

const ORG_A = 'aaaaaaaa-0000-4000-8000-000000000001';
const ORG_B = 'bbbbbbbb-0000-4000-8000-000000000002';
const ALICE = '11111111-0000-4000-8000-000000000001';
const BOB = '22222222-0000-4000-8000-000000000002';

const alicesWorkspace = orgScoped('workspace', ORG_A, ALICE);
const alicesDormantWorkspace = orgScoped('workspace_dormant', ORG_A, ALICE);

describe('the subject of a workspace agent', () => {
  const agent = workspaceAgentSubject({ owner_id: ALICE, organization_id: ORG_A });

  it('reads and reports on the workspaces of its owner in its organization, dormant or not', () => {
    for (const action of ['read', 'update'] as const) {
      assert.equal(authorize(agent, action, alicesWorkspace), true, action);
      assert.equal(authorize(agent, action, alicesDormantWorkspace), true, action);
    }
  });

  it('reads its owner, personal data included, and nobody else', () => {
    assert.equal(authorize(agent, 'read', userObject(ALICE)), true);
    assert.equal(authorize(agent, 'read_personal', userObject(ALICE)), true);
    assert.equal(authorize(agent, 'read', userObject(BOB)), false);
    assert.equal(authorize(agent, 'read_personal', userObject(BOB)), false);
    assert.equal(authorize(agent, 'update_personal', userObject(ALICE)), false);
  });

  it("reaches no one else's workspace, nor its owner's in another organization", () => {
    assert.equal(authorize(agent, 'read', orgScoped('workspace', ORG_A, BOB)), false);
    assert.equal(authorize(agent, 'read', orgScoped('workspace', ORG_B, ALICE)), false);
    assert.equal(authorize(agent, 'read', orgScoped('workspace', ORG_A)), false);
  });

  it('may not do what only its owner may: delete, stop, connect, or anything site-wide', () => {
    for (const action of ['delete', 'start', 'stop', 'ssh', 'application_connect', 'create'] as const) {
      assert.equal(authorize(agent, action, alicesWorkspace), false, action);
    }
    assert.equal(authorize(agent, 'read', orgScoped('template', ORG_A)), false);
    assert.equal(authorize(agent, 'read', siteObject('deployment_config')), false);
  });
});

describe('the system subjects of agents and apps', () => {
  it('lets the agent authenticator read workspaces and nothing more', () => {
    const { agentAuthenticator } = SYSTEM_SUBJECTS;
    assert.equal(authorize(agentAuthenticator, 'read', alicesWorkspace), true);
    assert.equal(authorize(agentAuthenticator, 'read', alicesDormantWorkspace), true);
    assert.equal(authorize(agentAuthenticator, 'update', alicesWorkspace), false);
    assert.equal(authorize(agentAuthenticator, 'read', userObject(ALICE)), false);
  });

  it('lets the instance identity exchange replace agent tokens, and read the jobs that made them', () => {
    const { instanceIdentity } = SYSTEM_SUBJECTS;
    assert.equal(authorize(instanceIdentity, 'update', alicesWorkspace), true);
    assert.equal(authorize(instanceIdentity, 'read', orgScoped('provisioner_jobs', ORG_A)), true);
    assert.equal(authorize(instanceIdentity, 'delete', alicesWorkspace), false);
    assert.equal(authorize(instanceIdentity, 'read', userObject(ALICE)), false);
  });

  it('lets the app resolver read owners and workspaces, and change nothing', () => {
    const { appResolver } = SYSTEM_SUBJECTS;
    assert.equal(authorize(appResolver, 'read', userObject(ALICE)), true);
    assert.equal(authorize(appResolver, 'read', alicesWorkspace), true);
    assert.equal(authorize(appResolver, 'read_personal', userObject(ALICE)), false);
    assert.equal(authorize(appResolver, 'update', alicesWorkspace), false);
    assert.equal(authorize(appResolver, 'application_connect', alicesWorkspace), false);
  });
});
