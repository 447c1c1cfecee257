import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * Routes outside the spec's table that clients of the reference call first: the sign-in methods,
 * a user's login type, organizations and session keys, and one build's timings.
 */

describe('GET /users/authmethods', () => {
  it('offers passwords, and neither GitHub nor OIDC until they are configured, before anyone signs in', async () => {
    const plain = await startTestDaemon();
    try {
      assert.deepEqual(await plain.anonymous.authMethods(), {
        password: { enabled: true },
        github: { enabled: false, default_provider_configured: false },
        oidc: { enabled: false, signInText: 'OpenID Connect', iconUrl: '' },
      });
    } finally {
      await plain.close();
    }
    // Configured providers are in the sign-in tests (oidc-sign-in, github-sign-in, cli-auth).
  });
});

describe('user routes clients call first', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let bob: CoveClient;
  /** An organization admin: sees alice, but may neither read her personal details nor hold her keys. */
  let carol: CoveClient;

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    bob = await createMember(test, 'bob');
    carol = await createMember(test, 'carol');
    const defaultOrg = (await owner.organizations())[0];
    assert.ok(defaultOrg);
    await owner.setMemberRoles(defaultOrg.id, 'carol', ['organization-admin']);
  });
  after(async () => test.close());

  it('GET /users/{user}/login-type tells users their own login type, and owners anyone’s', async () => {
    assert.deepEqual(await alice.userLoginType(), { login_type: 'password' });
    assert.deepEqual(await owner.userLoginType('alice'), { login_type: 'password' });
    await expectApiError(carol.userLoginType('alice'), 403, /not authorized to view this user's login type/);
    await expectApiError(bob.userLoginType('alice'), 404, /not found/);
    await expectApiError(test.anonymous.userLoginType('alice'), 401);
  });

  it('GET /users/{user}/organizations lists the organizations the user belongs to that the caller may see', async () => {
    const labs = await owner.createOrganization({ name: 'labs' });
    const defaultOrg = (await alice.organizations())[0];
    assert.ok(defaultOrg);
    assert.deepEqual(
      (await alice.userOrganizations()).map((o) => o.id),
      [defaultOrg.id],
    );
    assert.deepEqual((await owner.userOrganizations('me')).map((o) => o.name).sort(), [defaultOrg.name, 'labs'].sort());
    await owner.addMember(labs.id, 'alice');
    assert.deepEqual((await alice.userOrganizations()).map((o) => o.name).sort(), [defaultOrg.name, 'labs'].sort());
    // Carol may see alice, but only the organizations she can read herself.
    assert.deepEqual(
      (await carol.userOrganizations('alice')).map((o) => o.name),
      [defaultOrg.name],
    );
    await expectApiError(bob.userOrganizations('alice'), 404);
  });

  it('POST /users/{user}/keys makes a session key that signs the user in for the session lifetime', async () => {
    const { key } = await alice.createSessionKey();
    assert.match(key, /^[0-9A-Za-z]{10}-[0-9A-Za-z]{22}$/);
    const signedIn = test.anonymous.withToken(key);
    assert.equal((await signedIn.user()).username, 'alice');
    const stored = await alice.apiKey(key.split('-')[0] ?? '');
    assert.equal(stored.login_type, 'password');
    assert.equal(stored.lifetime_seconds, 24 * 3600);
    assert.ok(!(await alice.listTokens()).some((token) => token.id === stored.id), 'a session key is not a named token');
    assert.equal((await owner.createSessionKey('alice')).key.length, 33, 'owners may make one for anyone');
    await expectApiError(carol.createSessionKey('alice'), 403);
    await expectApiError(bob.createSessionKey('alice'), 404);
  });

  it('GET /workspacebuilds/{build}/timings gives the timings of that build, not only the latest', async () => {
    const echo = { apply: { resources: [{ name: 'box', type: 'echo' }], logs: [{ stage: 'Planning', output: 'plan' }] } };
    const { template } = await createEchoTemplate(owner, 'timed', echo);
    const workspace = await alice.createWorkspace('me', { name: 'timed', template_id: template.id });
    await alice.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    const first = workspace.latest_build.id;
    const stop = await alice.createWorkspaceBuild(workspace.id, { transition: 'stop' });
    await alice.followWorkspaceBuildLogs(stop.id, () => undefined);

    const ofFirst = await alice.workspaceBuildTimings(first);
    assert.ok(ofFirst.provisioner_timings.length > 0);
    assert.ok(ofFirst.provisioner_timings.every((timing) => timing.job_id === workspace.latest_build.job.id));
    assert.deepEqual(
      await alice.workspaceBuildTimings(stop.id),
      await alice.workspaceTimings(workspace.id),
      'the latest is the workspace’s',
    );
    await expectApiError(bob.workspaceBuildTimings(first), 404);
    await expectApiError(alice.workspaceBuildTimings('not-a-uuid'), 400);
  });
});
