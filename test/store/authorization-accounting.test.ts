import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConnectedDaemons } from '../../src/domain/connected-daemons.js';
import { newApiKey } from '../../src/domain/sessions.js';
import { NotAuthorizedError, NotFoundError } from '../../src/lib/errors.js';
import { OutrankedError } from '../../src/lib/outranked-error.js';
import { newId } from '../../src/lib/random.js';
import { SYSTEM_SUBJECTS, userSubject, workspaceAgentSubject } from '../../src/rbac/index.js';
import { AuthorizedStore } from '../../src/store/authorized-store.js';
import type { JobCancellation, ProvisionerJobRow } from '../../src/store/rows.js';
import { templateRow } from '../helpers/template-row.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** The world each case runs in: a store seen by a subject who may, and by one who may not. */
interface World {
  readonly test: TestDaemon;
  readonly ownerId: string;
  readonly memberId: string;
  readonly owner: AuthorizedStore;
  readonly member: AuthorizedStore;
  readonly outsider: AuthorizedStore;
}

/**
 * One authorization case per method of the authorizing store: `allowed` must succeed for a
 * subject with the right, `denied` must be refused (or filtered to nothing, for lists).
 * A method without a case fails the test, so a new store method cannot skip authorization.
 */
/** A stored license row; its token is not checked by the store. */
function licenseRow(name: string) {
  return { uuid: newId(), jwt: name, uploaded_at: '2026-01-05T10:00:00.000Z', exp: '2027-01-01T00:00:00.000Z' };
}

/** Sign-in pacing for the store's cases: two attempts free, then a minute's wait. */
const pacing = { backoffMs: (failures: number) => (failures >= 2 ? 60_000 : 0), forgetAfterMs: 3_600_000 };

/** A minute of SSH use, for the usage recording case. */
const usageMinute = { minute: 29_000_000, kind: 'ssh', app_slug: '', app_display_name: '', app_icon: '', latency_ms: 0 };

const CASES: Readonly<Record<string, { allowed(w: World): Promise<unknown>; denied(w: World): Promise<unknown> }>> = {
  can: {
    allowed: async (w) => assert.equal(w.owner.can('read', { type: 'deployment_config' }), true),
    denied: async (w) => assert.equal(w.member.can('read', { type: 'deployment_config' }), false),
  },
  authorizeSite: {
    allowed: async (w) => w.owner.authorizeSite('read', 'deployment_config'),
    denied: async (w) => expectRefused(async () => w.member.authorizeSite('read', 'deployment_config')),
  },
  urgent: {
    // The urgent view is the same subject's: it decides exactly as the store it came from.
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      const { found } = await w.owner.urgent().getWorkspacesWithLatestBuilds([workspace.id]);
      assert.equal(found.get(workspace.id)?.workspace.id, workspace.id);
      assert.equal(w.member.urgent().subject, w.member.subject);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      const { found, refused } = await w.member.urgent().getWorkspacesWithLatestBuilds([workspace.id]);
      assert.equal(found.size, 0);
      assert.deepEqual([...refused], [workspace.id]);
    },
  },
  getUser: {
    allowed: async (w) => assert.equal((await w.member.getUser('me')).id, w.memberId),
    denied: async (w) => {
      await expectRefused(() => w.member.getUser(w.ownerId));
      // A row handed in as the caller's own is still checked against the caller.
      const ownerRow = await w.owner.getUser('me');
      await expectRefused(() => w.member.getUser(w.ownerId, ownerRow));
    },
  },
  getUserOrganizationIds: {
    allowed: async (w) => assert.equal((await w.owner.getUserOrganizationIds(w.memberId)).length, 1),
    denied: async (w) => expectRefused(() => w.member.getUserOrganizationIds(w.ownerId)),
  },
  getOrganizationIdsOfUsers: {
    allowed: async (w) => assert.equal((await w.owner.getOrganizationIdsOfUsers([w.ownerId, w.memberId])).get(w.memberId)?.length, 1),
    denied: async (w) => expectRefused(() => w.member.getOrganizationIdsOfUsers([w.memberId, w.ownerId])),
  },
  getOrganization: {
    allowed: async (w) => assert.equal((await w.member.getOrganization('default')).is_default, 1),
    denied: async (w) => expectRefused(() => w.outsider.getOrganization('default')),
  },
  listOrganizations: {
    allowed: async (w) => assert.equal((await w.member.listOrganizations()).length, 1),
    denied: async (w) => assert.deepEqual(await w.outsider.listOrganizations(), []),
  },
  listCustomRoles: {
    allowed: async (w) => assert.deepEqual(await w.member.listCustomRoles((await w.member.getOrganization('default')).id), []),
    denied: async (w) => expectRefused(async () => w.outsider.listCustomRoles((await w.owner.getOrganization('default')).id)),
  },
  listUsers: {
    allowed: async (w) => assert.ok((await w.owner.listUsers(everyone)).rows.some((u) => u.id === w.memberId)),
    denied: async (w) =>
      assert.deepEqual(
        (await w.member.listUsers(everyone)).rows.map((u) => u.id),
        [w.memberId],
      ),
  },
  insertUser: {
    allowed: async (w) => w.owner.insertUser(userRow(w, 'made-by-owner'), []),
    denied: async (w) => expectRefused(() => w.member.insertUser(userRow(w, 'made-by-member'), [])),
  },
  updateUser: {
    allowed: async (w) => w.member.updateUser(w.memberId, 'personal', { name: 'Member M' }),
    denied: async (w) => expectRefused(() => w.member.updateUser(w.memberId, 'admin', { status: 'suspended' })),
  },
  getGitSshKey: {
    allowed: async (w) => {
      const key = await w.member.getGitSshKey('me');
      assert.equal(key.user_id, w.memberId);
      assert.match(key.public_key, /^ssh-ed25519 /);
    },
    denied: async (w) => expectRefused(() => w.member.getGitSshKey(w.ownerId)),
  },
  regenerateGitSshKey: {
    allowed: async (w) => {
      const before = await w.owner.getGitSshKey(w.memberId);
      assert.notEqual((await w.owner.regenerateGitSshKey(w.memberId)).public_key, before.public_key);
    },
    denied: async (w) => expectRefused(() => w.member.regenerateGitSshKey(w.ownerId)),
  },
  setSiteRoles: {
    allowed: async (w) => w.owner.setSiteRoles(w.memberId, [], { added: false, removed: true }),
    denied: async (w) => expectRefused(() => w.member.setSiteRoles(w.memberId, ['owner'], { added: true, removed: false })),
  },
  deleteUser: {
    allowed: async (w) => {
      const row = await w.owner.insertUser(userRow(w, 'doomed'), []);
      await w.owner.deleteUser(row.id);
    },
    denied: async (w) => expectRefused(() => w.member.deleteUser(w.memberId)),
  },
  deleteAllApiKeys: {
    allowed: async (w) => {
      const row = await w.owner.insertUser(userRow(w, 'keyless'), []);
      await w.owner.deleteAllApiKeys(row.id);
    },
    denied: async (w) => expectRefused(() => w.outsider.deleteAllApiKeys(w.memberId)),
  },
  requireOutranks: {
    // Owners may act on anyone; a member on nobody holding a role, such as the owner.
    allowed: async (w) => {
      await w.owner.requireOutranks(w.memberId);
      await w.member.requireOutranks(w.memberId);
    },
    denied: async (w) => assert.rejects(() => w.member.requireOutranks(w.ownerId), OutrankedError),
  },
  createOrganization: {
    allowed: async (w) => w.owner.createOrganization(orgRow(w, 'made-by-owner')),
    denied: async (w) => expectRefused(() => w.member.createOrganization(orgRow(w, 'made-by-member'))),
  },
  updateOrganization: {
    allowed: async (w) => w.owner.updateOrganization('made-by-owner', { description: 'changed' }),
    denied: async (w) => expectRefused(() => w.member.updateOrganization('default', { description: 'mine now' })),
  },
  deleteOrganization: {
    allowed: async (w) => {
      await w.owner.createOrganization(orgRow(w, 'short-lived'));
      await w.owner.deleteOrganization('short-lived');
    },
    denied: async (w) => expectRefused(() => w.member.deleteOrganization('default')),
  },
  listMembers: {
    allowed: async (w) => assert.ok((await w.owner.listMembers(defaultOrg(w), { limit: 0, offset: 0 })).rows.length >= 2),
    denied: async (w) =>
      assert.deepEqual(
        (await w.member.listMembers(defaultOrg(w), { limit: 0, offset: 0 })).rows.map((r) => r.user_id),
        [w.memberId],
      ),
  },
  addMember: {
    allowed: async (w) => w.owner.addMember((await w.owner.getOrganization('made-by-owner')).id, w.memberId),
    denied: async (w) => expectRefused(async () => w.member.addMember((await w.owner.getOrganization('made-by-owner')).id, w.ownerId)),
  },
  removeMember: {
    allowed: async (w) => w.owner.removeMember((await w.owner.getOrganization('made-by-owner')).id, w.memberId),
    denied: async (w) => expectRefused(() => w.member.removeMember(defaultOrg(w), w.ownerId)),
  },
  getMember: {
    allowed: async (w) => assert.equal((await w.member.getMember(defaultOrg(w), w.memberId)).user_id, w.memberId),
    denied: async (w) => expectRefused(() => w.member.getMember(defaultOrg(w), w.ownerId)),
  },
  setMemberRoles: {
    allowed: async (w) => w.owner.setMemberRoles(defaultOrg(w), w.memberId, [], { added: false, removed: true }),
    denied: async (w) =>
      expectRefused(() => w.member.setMemberRoles(defaultOrg(w), w.memberId, ['organization-admin'], { added: true, removed: false })),
  },
  saveCustomRole: {
    allowed: async (w) => w.owner.saveCustomRole(customRole(w, 'accounting'), 'create'),
    denied: async (w) => expectRefused(() => w.member.saveCustomRole(customRole(w, 'accounting'), 'update')),
  },
  deleteCustomRole: {
    allowed: async (w) => assert.equal(await w.owner.deleteCustomRole(defaultOrg(w), 'accounting'), true),
    denied: async (w) => expectRefused(() => w.member.deleteCustomRole(defaultOrg(w), 'accounting')),
  },
  insertApiKey: {
    allowed: async (w) => w.member.insertApiKey(key(w, w.memberId, 'mine')),
    denied: async (w) => expectRefused(() => w.member.insertApiKey(key(w, w.ownerId, 'not-mine'))),
  },
  getApiKey: {
    allowed: async (w) => {
      const row = await w.member.insertApiKey(key(w, w.memberId, 'readable'));
      assert.equal((await w.owner.getApiKey(w.memberId, row.id)).id, row.id);
    },
    denied: async (w) => {
      const row = await w.owner.insertApiKey(key(w, w.ownerId, 'owner-secret'));
      await expectRefused(() => w.member.getApiKey(w.ownerId, row.id));
    },
  },
  deleteApiKey: {
    allowed: async (w) => {
      const row = await w.member.insertApiKey(key(w, w.memberId, 'deletable'));
      await w.member.deleteApiKey(w.memberId, row.id);
    },
    denied: async (w) => {
      const row = await w.owner.insertApiKey(key(w, w.ownerId, 'undeletable'));
      await expectRefused(() => w.member.deleteApiKey(w.ownerId, row.id));
    },
  },
  signOut: {
    allowed: async (w) => {
      const row = await w.member.insertApiKey(key(w, w.memberId, 'signed-out'));
      await w.member.signOut(w.memberId, row.id);
    },
    denied: async (w) => {
      const row = await w.owner.insertApiKey(key(w, w.ownerId, 'not-signed-out'));
      await expectRefused(() => w.member.signOut(w.ownerId, row.id));
    },
  },
  listTokens: {
    allowed: async (w) => {
      await w.member.insertApiKey(key(w, w.memberId, 'listed'));
      assert.ok((await w.owner.listTokens('all')).some((t) => t.user_id === w.memberId));
    },
    denied: async (w) => {
      await w.owner.insertApiKey(key(w, w.ownerId, 'hidden'));
      const seen = await w.member.listTokens('all');
      assert.ok(seen.length > 0 && seen.every((t) => t.user_id === w.memberId));
      assert.deepEqual(await w.member.listTokens(w.ownerId), []);
    },
  },
  getUserByEmail: {
    allowed: async (w) => assert.equal((await w.member.getUserByEmail('MEMBER@example.com')).id, w.memberId),
    denied: async (w) => expectRefused(() => w.member.getUserByEmail('owner@example.com')),
  },
  insertFirstUser: {
    // Allowed, and refused by the data: the first user exists already, so nothing is written.
    allowed: async (w) => assert.equal(await system(w, 'firstUser').insertFirstUser(userRow(w, 'second-first'), defaultOrg(w)), false),
    denied: async (w) => expectRefused(() => w.member.insertFirstUser(userRow(w, 'self-made-owner'), defaultOrg(w))),
  },
  insertSiteAdmin: {
    // The first user exists already, so the claim is left as it is and only the administrator is added.
    allowed: async (w) => {
      const row = await system(w, 'siteAdminCreation').insertSiteAdmin({ ...userRow(w, 'site-admin'), rbac_roles: '["owner"]' }, [
        defaultOrg(w),
      ]);
      assert.deepEqual(await w.owner.getUserOrganizationIds(row.id), [defaultOrg(w)]);
    },
    denied: async (w) => expectRefused(() => w.member.insertSiteAdmin({ ...userRow(w, 'self-made-admin'), rbac_roles: '["owner"]' }, [])),
  },
  hasFirstUser: {
    allowed: async (w) => assert.equal(await system(w, 'firstUser').hasFirstUser(), true),
    denied: async (w) => expectRefused(() => w.member.hasFirstUser()),
  },
  recordUserSeen: {
    allowed: async (w) => system(w, 'authenticator').recordUserSeen(w.memberId, { last_seen_at: w.test.clock.now().toISOString() }),
    denied: async (w) => expectRefused(() => w.member.recordUserSeen(w.memberId, { status: 'active' })),
  },
  getUserByLink: {
    allowed: async (w) => {
      const made = await system(w, 'externalSignIn').insertLinkedUser(
        { ...userRow(w, 'linked-read'), login_type: 'github' },
        [],
        'gh-read',
      );
      assert.equal((await system(w, 'externalSignIn').getUserByLink('github', 'gh-read'))?.id, made.id);
    },
    denied: async (w) => {
      await system(w, 'externalSignIn').insertLinkedUser({ ...userRow(w, 'linked-hidden'), login_type: 'github' }, [], 'gh-hidden');
      await expectRefused(() => w.member.getUserByLink('github', 'gh-hidden'));
    },
  },
  insertLinkedUser: {
    allowed: async (w) => system(w, 'externalSignIn').insertLinkedUser({ ...userRow(w, 'signed-up') }, [defaultOrg(w)], 'oidc-signed-up'),
    denied: async (w) => expectRefused(() => w.member.insertLinkedUser(userRow(w, 'self-signed-up'), [], 'oidc-self')),
  },
  linkUser: {
    allowed: async (w) => {
      const member = await w.owner.getUser(w.memberId);
      assert.equal(await system(w, 'externalSignIn').linkUser(member, 'oidc', 'oidc-member', { fromPassword: false }), true);
    },
    denied: async (w) => {
      const owner = await w.owner.getUser(w.ownerId);
      await expectRefused(() => w.member.linkUser(owner, 'oidc', 'oidc-owner', { fromPassword: true }));
    },
  },
  insertSignInState: {
    allowed: async (w) => system(w, 'externalSignIn').insertSignInState(signInState(w, 'allowed-state')),
    denied: async (w) => expectRefused(() => w.member.insertSignInState(signInState(w, 'denied-state'))),
  },
  takeSignInState: {
    allowed: async (w) => {
      await system(w, 'externalSignIn').insertSignInState(signInState(w, 'taken-state'));
      assert.equal((await system(w, 'externalSignIn').takeSignInState('taken-state'))?.nonce, 'nonce');
      assert.equal(await system(w, 'externalSignIn').takeSignInState('taken-state'), undefined);
    },
    denied: async (w) => expectRefused(() => w.member.takeSignInState('taken-state')),
  },
  markInactiveUsersDormant: {
    allowed: async (w) => assert.equal(await system(w, 'userDormancy').markInactiveUsersDormant(new Date(0)), 0),
    denied: async (w) => expectRefused(() => w.member.markInactiveUsersDormant(new Date(0))),
  },
  resetPasswordWithPasscode: {
    // Allowed, and refused by the data: the user holds no passcode.
    allowed: async (w) => {
      const user = await w.owner.insertUser(userRow(w, 'no-passcode'), []);
      assert.equal(await system(w, 'passwordReset').resetPasswordWithPasscode(user, 'new-hash'), false);
    },
    denied: async (w) => expectRefused(async () => w.member.resetPasswordWithPasscode(await w.owner.getUser('me'), 'new-hash')),
  },
  rehashPassword: {
    allowed: async (w) => {
      const user = await w.owner.insertUser({ ...userRow(w, 'old-hash'), hashed_password: 'old-hash' }, []);
      assert.equal(await system(w, 'passwordSignIn').rehashPassword(user, 'new-hash'), true);
      // Only the hash that was checked is replaced: a second try with the stale row changes nothing.
      assert.equal(await system(w, 'passwordSignIn').rehashPassword(user, 'newer-hash'), false);
    },
    denied: async (w) => expectRefused(async () => w.member.rehashPassword(await w.owner.getUser('me'), 'new-hash')),
  },
  claimSignInAttempt: {
    allowed: async (w) => {
      const signIn = system(w, 'passwordSignIn');
      assert.deepEqual(await signIn.claimSignInAttempt('accounting-claim', pacing), { allowed: true });
      assert.deepEqual(await signIn.claimSignInAttempt('accounting-claim', pacing), { allowed: true });
      // Two counted: the third waits a minute.
      const refused = await signIn.claimSignInAttempt('accounting-claim', pacing);
      assert.equal(refused.allowed, false);
      assert.deepEqual(await system(w, 'passwordReset').claimSignInAttempt('accounting-passcode', pacing), { allowed: true });
    },
    denied: async (w) => expectRefused(() => w.member.claimSignInAttempt('accounting-claim-denied', pacing)),
  },
  usedKeyFrom: {
    allowed: async (w) => {
      await w.member.insertApiKey(key(w, w.memberId, 'from-an-address'));
      const signIn = system(w, 'passwordSignIn');
      assert.equal(await signIn.usedKeyFrom(w.memberId, '192.0.2.77'), false);
    },
    denied: async (w) => expectRefused(() => w.member.usedKeyFrom(w.ownerId, '127.0.0.1')),
  },
  forgetSignInFailures: {
    allowed: async (w) => {
      const signIn = system(w, 'passwordSignIn');
      await signIn.claimSignInAttempt('accounting-forget', pacing);
      await signIn.claimSignInAttempt('accounting-forget', pacing);
      await signIn.forgetSignInFailures('accounting-forget');
      assert.deepEqual(await signIn.claimSignInAttempt('accounting-forget', pacing), { allowed: true });
    },
    denied: async (w) => expectRefused(() => w.member.forgetSignInFailures('accounting-forget')),
  },
  ensureDefaultOrganization: {
    allowed: async (w) =>
      assert.equal((await system(w, 'bootstrap').ensureDefaultOrganization(orgRow(w, 'second-default'))).id, defaultOrg(w)),
    denied: async (w) => expectRefused(() => w.member.ensureDefaultOrganization(orgRow(w, 'member-default'))),
  },
  ensureSiteValue: {
    allowed: async (w) =>
      assert.equal(await system(w, 'bootstrap').ensureSiteValue('deployment_id', 'other'), w.test.daemon.identity.deploymentId),
    denied: async (w) => expectRefused(() => w.member.ensureSiteValue('deployment_id', 'mine')),
  },
  getSession: {
    allowed: async (w) => {
      const row = await w.member.insertApiKey(key(w, w.memberId, 'session-of-member'));
      assert.equal((await system(w, 'authenticator').getSession(row.id, w.test.clock.now(), subjectOptions))?.user.id, w.memberId);
    },
    denied: async (w) => {
      const row = await w.owner.insertApiKey(key(w, w.ownerId, 'session-of-owner'));
      await expectRefused(() => w.member.getSession(row.id, w.test.clock.now(), subjectOptions));
    },
  },
  getCachedSession: {
    allowed: async (w) => {
      const row = await w.member.insertApiKey(key(w, w.memberId, 'cached-of-member'));
      const authenticator = system(w, 'authenticator');
      assert.equal(authenticator.getCachedSession(row.id, w.test.clock.now()), undefined);
      const session = await authenticator.getSession(row.id, w.test.clock.now(), subjectOptions);
      assert.ok(session);
      authenticator.rememberSession(session, w.test.clock.now());
      assert.equal(authenticator.getCachedSession(row.id, w.test.clock.now())?.user.id, w.memberId);
    },
    denied: async (w) => {
      const row = await w.owner.insertApiKey(key(w, w.ownerId, 'cached-of-owner'));
      const authenticator = system(w, 'authenticator');
      const session = await authenticator.getSession(row.id, w.test.clock.now(), subjectOptions);
      assert.ok(session);
      authenticator.rememberSession(session, w.test.clock.now());
      await expectRefused(async () => w.member.getCachedSession(row.id, w.test.clock.now()));
    },
  },
  rememberSession: {
    allowed: async (w) => {
      const row = await w.member.insertApiKey(key(w, w.memberId, 'remembered'));
      const authenticator = system(w, 'authenticator');
      const session = await authenticator.getSession(row.id, w.test.clock.now(), subjectOptions);
      assert.ok(session);
      authenticator.rememberSession(session, w.test.clock.now());
    },
    denied: async (w) => {
      const row = await w.owner.insertApiKey(key(w, w.ownerId, 'not-remembered'));
      const session = await system(w, 'authenticator').getSession(row.id, w.test.clock.now(), subjectOptions);
      assert.ok(session);
      await expectRefused(async () => w.member.rememberSession(session, w.test.clock.now()));
    },
  },
  recordApiKeyUse: {
    allowed: async (w) => {
      const row = await w.member.insertApiKey(key(w, w.memberId, 'used'));
      await system(w, 'authenticator').recordApiKeyUse(row, { last_used: w.test.clock.now().toISOString() });
    },
    denied: async (w) => {
      const row = await w.owner.insertApiKey(key(w, w.ownerId, 'unused'));
      await expectRefused(() => w.member.recordApiKeyUse(row, { last_used: w.test.clock.now().toISOString() }));
    },
  },
  listDismissedHealthChecks: {
    allowed: async (w) => assert.ok(Array.isArray(await w.owner.listDismissedHealthChecks())),
    denied: async (w) => expectRefused(() => w.member.listDismissedHealthChecks()),
  },
  setDismissedHealthChecks: {
    allowed: async (w) => w.owner.setDismissedHealthChecks([]),
    denied: async (w) => expectRefused(() => w.member.setDismissedHealthChecks(['DERP'])),
  },
  pingDatabase: {
    allowed: async (w) => system(w, 'healthCheck').pingDatabase(),
    denied: async (w) => expectRefused(() => system(w, 'metricsCollector').pingDatabase()),
  },
  listProvisionerDaemonsSeenSince: {
    allowed: async (w) => assert.ok(Array.isArray(await system(w, 'healthCheck').listProvisionerDaemonsSeenSince(w.test.clock.now()))),
    denied: async (w) => expectRefused(() => w.member.listProvisionerDaemonsSeenSince(w.test.clock.now())),
  },
  countWorkspacesByLatestBuild: {
    allowed: async (w) => assert.ok(Array.isArray(await system(w, 'metricsCollector').countWorkspacesByLatestBuild())),
    denied: async (w) => expectRefused(() => system(w, 'healthCheck').countWorkspacesByLatestBuild()),
  },
  countActiveProvisionerJobs: {
    allowed: async (w) => assert.equal(typeof (await system(w, 'metricsCollector').countActiveProvisionerJobs()).queued, 'number'),
    denied: async (w) => expectRefused(() => w.member.countActiveProvisionerJobs()),
  },
  getDeploymentStatsInputs: {
    allowed: async (w) => assert.ok(Array.isArray((await w.owner.getDeploymentStatsInputs(w.test.clock.now())).latestBuilds)),
    denied: async (w) => expectRefused(() => w.member.getDeploymentStatsInputs(w.test.clock.now())),
  },
  saveFile: {
    allowed: async (w) => assert.equal((await w.member.saveFile(fileRow(w, w.memberId, 'a'))).created, true),
    denied: async (w) => expectRefused(() => w.member.saveFile(fileRow(w, w.ownerId, 'b'))),
  },
  getFile: {
    allowed: async (w) => {
      const { file } = await w.member.saveFile(fileRow(w, w.memberId, 'c'));
      assert.equal((await w.member.getFile(file.id)).data.toString(), 'c');
      assert.equal((await w.owner.getFile(file.id)).id, file.id);
    },
    denied: async (w) => {
      const { file } = await w.owner.saveFile(fileRow(w, w.ownerId, 'd'));
      await expectRefused(() => w.member.getFile(file.id));
    },
  },
  getTemplate: {
    allowed: async (w) =>
      assert.equal((await w.member.getTemplate((await templateFixture(w)).template.id)).name.startsWith('fixture'), true),
    denied: async (w) => expectRefused(async () => w.outsider.getTemplate((await templateFixture(w)).template.id)),
  },
  getTemplateByName: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      assert.equal((await w.member.getTemplateByName(template.organization_id, template.name)).id, template.id);
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      await expectRefused(() => w.outsider.getTemplateByName(template.organization_id, template.name));
    },
  },
  listTemplates: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      assert.ok((await w.member.listTemplates()).some((t) => t.id === template.id));
    },
    denied: async (w) => {
      await templateFixture(w);
      assert.deepEqual(await w.outsider.listTemplates(), []);
    },
  },
  insertTemplate: {
    allowed: async (w) => assert.ok((await templateFixture(w)).template.id),
    denied: async (w) => {
      const { version } = await versionFixture(w, w.owner);
      await expectRefused(() => w.member.insertTemplate(fixtureTemplate(w, version.id)));
    },
  },
  updateTemplate: {
    allowed: async (w) =>
      assert.equal((await w.owner.updateTemplate((await templateFixture(w)).template, { description: 'x' })).description, 'x'),
    denied: async (w) => expectRefused(async () => w.member.updateTemplate((await templateFixture(w)).template, { description: 'y' })),
  },
  authorizeTemplate: {
    allowed: async (w) => w.owner.authorizeTemplate('update', { template: (await templateFixture(w)).template }),
    denied: async (w) => expectRefused(async () => w.member.authorizeTemplate('update', { template: (await templateFixture(w)).template })),
  },
  insertTemplateVersion: {
    allowed: async (w) => assert.ok((await versionFixture(w, w.owner)).version.id),
    denied: async (w) => expectRefused(() => versionFixture(w, w.member)),
  },
  getTemplateVersion: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      assert.equal((await w.member.getTemplateVersion(template.active_version_id)).version.template_id, template.id);
    },
    denied: async (w) => expectRefused(async () => w.outsider.getTemplateVersion((await templateFixture(w)).template.active_version_id)),
  },
  getTemplateWithVersion: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const found = await w.member.getTemplateWithVersion(template.id);
      assert.deepEqual(found.template, template);
      assert.equal(found.version.id, template.active_version_id);
      assert.equal(found.job.id, found.version.job_id);
      assert.equal(found.organization?.id, template.organization_id, 'a member reads the organization with the template');
      await assert.rejects(w.member.getTemplateWithVersion(newId()), NotFoundError);
      // A named version: the template's own, then another template's, which is not found with it.
      const named = await w.member.getTemplateWithVersion(template.id, template.active_version_id);
      assert.deepEqual(named.version, found.version);
      const other = await templateFixture(w);
      await assert.rejects(w.member.getTemplateWithVersion(template.id, other.template.active_version_id), {
        name: 'NotFoundError',
        what: 'template version',
      });
    },
    denied: async (w) => expectRefused(async () => w.outsider.getTemplateWithVersion((await templateFixture(w)).template.id)),
  },
  listTemplateVersions: {
    allowed: async (w) => assert.equal((await w.member.listTemplateVersions((await templateFixture(w)).template)).length, 1),
    denied: async (w) => expectRefused(async () => w.outsider.listTemplateVersions((await templateFixture(w)).template)),
  },
  updateTemplateVersion: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.getTemplateVersion(template.active_version_id);
      await w.owner.updateTemplateVersion(version, { message: 'changed' });
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.getTemplateVersion(template.active_version_id);
      await expectRefused(() => w.member.updateTemplateVersion(version, { message: 'changed' }));
    },
  },
  cancelTemplateVersionJob: {
    allowed: async (w) => {
      const { version, job } = await versionFixture(w, w.owner);
      assert.ok((await w.owner.cancelTemplateVersionJob(version, job, cancellation(w))).canceled_at);
    },
    denied: async (w) => {
      const { version, job } = await versionFixture(w, w.owner);
      await expectRefused(() => w.member.cancelTemplateVersionJob(version, job, cancellation(w)));
    },
  },
  listJobResources: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version, job } = await w.owner.getTemplateVersion(template.active_version_id);
      assert.deepEqual(await w.member.listJobResources(version, job.id), []);
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version, job } = await w.owner.getTemplateVersion(template.active_version_id);
      await expectRefused(() => w.outsider.listJobResources(version, job.id));
    },
  },
  listJobLogs: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version, job } = await w.owner.getTemplateVersion(template.active_version_id);
      assert.deepEqual(await w.member.listJobLogs(version, job.id, {}), []);
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version, job } = await w.owner.getTemplateVersion(template.active_version_id);
      await expectRefused(() => w.outsider.listJobLogs(version, job.id, {}));
    },
  },
  getProvisionerJob: {
    allowed: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      assert.equal((await w.owner.getProvisionerJob(job.organization_id, job.id)).id, job.id);
    },
    denied: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      await expectRefused(() => w.member.getProvisionerJob(job.organization_id, job.id));
    },
  },
  listProvisionerJobs: {
    allowed: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      assert.ok((await w.owner.listProvisionerJobs(job.organization_id, { limit: 50 })).some((j) => j.id === job.id));
    },
    denied: async (w) => expectRefused(() => w.member.listProvisionerJobs(defaultOrg(w), { limit: 50 })),
  },
  insertProvisionerKey: {
    allowed: async (w) => w.owner.insertProvisionerKey(keyRow(w, 'allowed-key')),
    denied: async (w) => expectRefused(() => w.member.insertProvisionerKey(keyRow(w, 'denied-key'))),
  },
  listProvisionerKeys: {
    allowed: async (w) => assert.ok(Array.isArray(await w.member.listProvisionerKeys(defaultOrg(w)))),
    denied: async (w) => expectRefused(() => w.outsider.listProvisionerKeys(defaultOrg(w))),
  },
  deleteProvisionerKey: {
    allowed: async (w) => {
      await w.owner.insertProvisionerKey(keyRow(w, 'doomed-key'));
      await w.owner.deleteProvisionerKey(defaultOrg(w), 'doomed-key');
    },
    denied: async (w) => {
      await w.owner.insertProvisionerKey(keyRow(w, 'kept-key'));
      await expectRefused(() => w.member.deleteProvisionerKey(defaultOrg(w), 'kept-key'));
    },
  },
  listProvisionerDaemons: {
    allowed: async (w) => assert.ok(Array.isArray(await w.member.listProvisionerDaemons(defaultOrg(w)))),
    denied: async (w) => expectRefused(() => w.outsider.listProvisionerDaemons(defaultOrg(w))),
  },
  insertDryRunJob: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version, job } = await w.owner.getTemplateVersion(template.active_version_id);
      await w.member.insertDryRunJob(version, {
        ...job,
        id: newId(),
        type: 'template_version_dry_run',
        initiator_id: w.memberId,
        input: JSON.stringify({ template_version_id: version.id }),
      });
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version, job } = await w.owner.getTemplateVersion(template.active_version_id);
      await expectRefused(() => w.outsider.insertDryRunJob(version, { ...job, id: newId(), type: 'template_version_dry_run' }));
    },
  },
  getDryRunJob: {
    allowed: async (w) => {
      const { version, dryRun } = await dryRunFixture(w);
      assert.equal((await w.owner.getDryRunJob(version, dryRun.id)).id, dryRun.id);
    },
    denied: async (w) => {
      const { version, dryRun } = await dryRunFixture(w);
      await expectRefused(() => w.member.getDryRunJob(version, dryRun.id));
    },
  },
  cancelDryRunJob: {
    allowed: async (w) => assert.ok((await w.owner.cancelDryRunJob((await dryRunFixture(w)).dryRun, cancellation(w))).canceled_at),
    denied: async (w) => expectRefused(async () => w.member.cancelDryRunJob((await dryRunFixture(w)).dryRun, cancellation(w))),
  },
  getTemplateRelations: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const related = await w.member.getTemplateRelations([template]);
      assert.equal(related.creatorNames.get(template.created_by) !== undefined, true);
    },
    denied: async (w) => expectRefused(async () => w.outsider.getTemplateRelations([(await templateFixture(w)).template])),
  },
  templateHasWorkspaces: {
    allowed: async (w) => assert.equal(await w.member.templateHasWorkspaces((await templateFixture(w)).template), false),
    denied: async (w) => expectRefused(async () => w.outsider.templateHasWorkspaces((await templateFixture(w)).template)),
  },
  narrowTemplatePortShares: {
    allowed: async (w) => w.owner.narrowTemplatePortShares((await templateFixture(w)).template, SHARE_LEVELS),
    denied: async (w) => expectRefused(async () => w.member.narrowTemplatePortShares((await templateFixture(w)).template, SHARE_LEVELS)),
  },
  getTemplateVersionByName: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.getTemplateVersion(template.active_version_id);
      assert.equal((await w.member.getTemplateVersionByName(template, version.name.toUpperCase())).version.id, version.id);
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.getTemplateVersion(template.active_version_id);
      await expectRefused(() => w.outsider.getTemplateVersionByName(template, version.name));
    },
  },
  getPreviousTemplateVersion: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.getTemplateVersion(template.active_version_id);
      assert.equal(await w.member.getPreviousTemplateVersion(template, version), undefined);
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.getTemplateVersion(template.active_version_id);
      await expectRefused(() => w.outsider.getPreviousTemplateVersion(template, version));
    },
  },
  pageTemplateVersions: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const page = await w.member.pageTemplateVersions(template, { includeArchived: false, offset: 0, limit: 25 });
      assert.deepEqual(page === 'missing-after' ? page : page.map((v) => v.version.id), [template.active_version_id]);
    },
    denied: async (w) =>
      expectRefused(async () =>
        w.outsider.pageTemplateVersions((await templateFixture(w)).template, { includeArchived: false, offset: 0, limit: 25 }),
      ),
  },
  getVersionCreators: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.getTemplateVersion(template.active_version_id);
      assert.equal((await w.member.getVersionCreators([version])).get(w.ownerId)?.id, w.ownerId);
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.getTemplateVersion(template.active_version_id);
      await expectRefused(() => w.outsider.getVersionCreators([version]));
    },
  },
  getJobRelations: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { job } = await w.owner.getTemplateVersion(template.active_version_id);
      assert.ok((await w.member.getJobRelations([job])).queued.has(job.id));
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { job } = await w.owner.getTemplateVersion(template.active_version_id);
      await expectRefused(() => w.outsider.getJobRelations([job]));
    },
  },
  followJobLogs: {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { job } = await w.owner.getTemplateVersion(template.active_version_id);
      assert.deepEqual(await (await w.member.followJobLogs(job.id)).logsAfter(0), []);
    },
    denied: async (w) => {
      const { job } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.followJobLogs(job.id));
    },
  },
  getProvisionerKeyByHash: {
    allowed: async (w) => {
      await w.owner.insertProvisionerKey(keyRow(w, 'found-key'));
      assert.equal((await w.owner.getProvisionerKeyByHash('hash-found-key')).name, 'found-key');
    },
    denied: async (w) => {
      await w.owner.insertProvisionerKey(keyRow(w, 'hidden-key'));
      await expectRefused(() => w.outsider.getProvisionerKeyByHash('hash-hidden-key'));
    },
  },
  registerProvisionerDaemon: {
    allowed: async (w) => provisioner(w).registerProvisionerDaemon(daemonRow(w)),
    denied: async (w) => expectRefused(() => w.member.registerProvisionerDaemon(daemonRow(w))),
  },
  touchProvisionerDaemon: {
    allowed: async (w) => provisioner(w).touchProvisionerDaemon(defaultOrg(w), newId()),
    denied: async (w) => expectRefused(() => w.member.touchProvisionerDaemon(defaultOrg(w), newId())),
  },
  claimNextProvisionerJob: {
    allowed: async (w) => {
      await drainQueue(w);
      const { job } = await versionFixture(w, w.owner);
      const workerId = newId();
      const claimed = await claimNext(w, workerId);
      assert.equal(claimed?.id, job.id);
      assert.equal(claimed.worker_id, workerId);
      assert.equal(await claimNext(w, newId()), undefined);
    },
    denied: async (w) => {
      await versionFixture(w, w.owner);
      await expectRefused(() =>
        w.member.claimNextProvisionerJob(defaultOrg(w), { workerId: newId(), provisioners: ['echo'], tags: UNTAGGED }),
      );
    },
  },
  getProvisionerJobWithContext: {
    allowed: async (w) => {
      const { job, workspace } = await workspaceFixture(w, w.member);
      const run = await provisioner(w).getProvisionerJobWithContext(job.organization_id, job.id, 'run');
      assert.equal(run.job.id, job.id);
      assert.equal(run.context.build?.workspace?.owner_id, w.memberId);
      assert.equal(run.context.build?.row?.job_id, job.id);
      assert.ok(run.context.file && run.context.file.data.length > 0, 'running reads the archive');
      assert.equal(run.context.build?.template?.id, workspace.template_id, "the template, whose schedule the job's end is recorded with");
      const record = await provisioner(w).getProvisionerJobWithContext(job.organization_id, job.id, 'record');
      assert.equal(record.context.file, undefined, 'recording leaves the archive out');
      assert.equal(record.context.build?.template?.id, workspace.template_id);
      await assert.rejects(provisioner(w).getProvisionerJobWithContext(newId(), job.id, 'run'), NotFoundError);
    },
    denied: async (w) =>
      expectRefused(async () => {
        const { job } = await workspaceFixture(w, w.member);
        await w.member.getProvisionerJobWithContext(job.organization_id, job.id, 'run');
      }),
  },
  getWorkspaceIdOfJob: {
    allowed: async (w) => {
      const { workspace, job } = await workspaceFixture(w, w.member);
      assert.equal(await provisioner(w).getWorkspaceIdOfJob(job), workspace.id);
    },
    denied: async (w) => expectRefused(async () => w.member.getWorkspaceIdOfJob((await workspaceFixture(w, w.member)).job)),
  },
  appendProvisionerJobLogs: {
    allowed: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      await provisioner(w).appendProvisionerJobLogs(job, [logLine(w)]);
      assert.equal((await (await w.owner.followJobLogs(job.id)).logsAfter(0)).length, 1);
    },
    denied: async (w) => expectRefused(async () => w.member.appendProvisionerJobLogs((await versionFixture(w, w.owner)).job, [logLine(w)])),
  },
  completeProvisionerJob: {
    allowed: async (w) => {
      await drainQueue(w);
      const { job } = await versionFixture(w, w.owner);
      const workerId = newId();
      assert.equal((await claimNext(w, workerId))?.id, job.id);
      const stored = await provisioner(w).completeProvisionerJob(job, () => completion(w, { readme: 'done' }), undefined, { workerId });
      await stored.announced;
      assert.equal(stored.stored, true);
      assert.equal((await w.owner.getProvisionerJob(job.organization_id, job.id)).completed_at !== null, true);
    },
    denied: async (w) =>
      expectRefused(async () =>
        w.member.completeProvisionerJob((await versionFixture(w, w.owner)).job, () => completion(w, {}), undefined, { workerId: newId() }),
      ),
  },
  finishProvisionerJob: {
    allowed: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      assert.equal(await provisioner(w).finishProvisionerJob(job, { error: 'broken', error_code: '' }), true);
    },
    denied: async (w) =>
      expectRefused(async () => w.member.finishProvisionerJob((await versionFixture(w, w.owner)).job, { error: 'x', error_code: '' })),
  },
  listStalledProvisionerJobs: {
    allowed: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      const later = new Date(w.test.clock.now().getTime() + 1000).toISOString();
      const cutoffs = { hungBefore: later, orphanedBefore: later, staleBefore: later };
      assert.ok((await reaper(w).listStalledProvisionerJobs(cutoffs, cancellation(w).live, 1000)).some((j) => j.id === job.id));
    },
    denied: async (w) =>
      expectRefused(() =>
        w.member.listStalledProvisionerJobs({ hungBefore: '', orphanedBefore: '', staleBefore: '' }, cancellation(w).live, 10),
      ),
  },
  listOpenProvisionerJobsOfWorkers: {
    allowed: async (w) => {
      await drainQueue(w);
      const { job } = await versionFixture(w, w.owner);
      const workerId = newId();
      assert.equal((await claimNext(w, workerId))?.id, job.id);
      const open = await w.test.daemon.store.as(SYSTEM_SUBJECTS.jobRecovery).listOpenProvisionerJobsOfWorkers(workerId.slice(0, 24), 10);
      assert.deepEqual(
        open.map((j) => j.id),
        [job.id],
      );
    },
    denied: async (w) => expectRefused(() => w.member.listOpenProvisionerJobsOfWorkers('0', 10)),
  },
  reapProvisionerJob: {
    allowed: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      assert.equal(await reaper(w).reapProvisionerJob(job, 'hung', ['reaped']), true);
    },
    denied: async (w) => expectRefused(async () => w.member.reapProvisionerJob((await versionFixture(w, w.owner)).job, 'hung', [])),
  },
  insertWorkspace: {
    allowed: async (w) => assert.ok((await workspaceFixture(w, w.member)).workspace.id),
    denied: async (w) => expectRefused(() => workspaceFixture(w, w.outsider)),
  },
  getWorkspace: {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      assert.equal((await w.owner.getWorkspace(workspace.id)).id, workspace.id);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.getWorkspace(workspace.id));
    },
  },
  getWorkspacesWithLatestBuilds: {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      const { found: all, refused } = await w.owner.getWorkspacesWithLatestBuilds([workspace.id, 'not-an-id', newId()]);
      assert.equal(refused.size, 0);
      const found = all.get(workspace.id);
      assert.equal(found?.workspace.id, workspace.id);
      assert.equal(found.latestBuild?.id, build.id);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      const { found, refused } = await w.member.getWorkspacesWithLatestBuilds([workspace.id]);
      assert.equal(found.size, 0);
      assert.deepEqual([...refused], [workspace.id]);
    },
  },
  getWorkspaceByOwnerAndName: {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.getWorkspaceByOwnerAndName(w.memberId, workspace.name, false)).id, workspace.id);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.getWorkspaceByOwnerAndName(w.ownerId, workspace.name, false));
    },
  },
  listWorkspaces: {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      assert.ok((await w.owner.listWorkspaces(allWorkspaces)).rows.some((row) => row.id === workspace.id));
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      assert.ok(!(await w.member.listWorkspaces(allWorkspaces)).rows.some((row) => row.id === workspace.id));
    },
  },
  grantBuild: {
    allowed: async (w) => assert.equal(w.member.grantBuild((await workspaceFixture(w, w.member)).workspace, 'stop').transition, 'stop'),
    denied: async (w) => expectRefused(async () => w.member.grantBuild((await workspaceFixture(w, w.owner)).workspace, 'stop')),
  },
  insertBuild: {
    allowed: async (w) => {
      const { workspace, build, job } = await workspaceFixture(w, w.member);
      const next = await nextJob(w, job);
      const grant = w.member.grantBuild(workspace, 'stop');
      await w.member.insertBuild(grant, {
        build: { ...build, id: newId(), build_number: 2, transition: 'stop', job_id: next.id },
        job: next,
        orphan: false,
      });
    },
    denied: async (w) => {
      const { workspace, build, job } = await workspaceFixture(w, w.owner);
      const next = await nextJob(w, job);
      // A grant the member's store did not make (it is the owner's) decides nothing for the member.
      const grant = w.owner.grantBuild(workspace, 'start');
      await expectRefused(() =>
        w.member.insertBuild(grant, { build: { ...build, id: newId(), build_number: 2, job_id: next.id }, job: next, orphan: false }),
      );
    },
  },
  grantWorkspaceCreation: {
    allowed: async (w) =>
      assert.equal(w.member.grantWorkspaceCreation(w.memberId, (await templateFixture(w)).template).ownerId, w.memberId),
    denied: async (w) => expectRefused(async () => w.member.grantWorkspaceCreation(w.ownerId, (await templateFixture(w)).template)),
  },
  authorizeWorkspace: {
    allowed: async (w) => w.member.authorizeWorkspace('update', (await workspaceFixture(w, w.member)).workspace),
    denied: async (w) => expectRefused(async () => w.member.authorizeWorkspace('read', (await workspaceFixture(w, w.owner)).workspace)),
  },
  updateWorkspace: {
    allowed: async (w) =>
      assert.equal((await w.member.updateWorkspace((await workspaceFixture(w, w.member)).workspace, { favorite: 1 })).favorite, 1),
    denied: async (w) =>
      expectRefused(async () => w.member.updateWorkspace((await workspaceFixture(w, w.owner)).workspace, { favorite: 1 })),
  },
  listWorkspaceBuilds: {
    allowed: async (w) =>
      assert.equal((await w.member.listWorkspaceBuilds((await workspaceFixture(w, w.member)).workspace, everyBuild))?.length, 1),
    denied: async (w) =>
      expectRefused(async () => w.member.listWorkspaceBuilds((await workspaceFixture(w, w.owner)).workspace, everyBuild)),
  },
  insertLicense: {
    allowed: async (w) => assert.ok((await w.owner.insertLicense(licenseRow('owner-license'))).id > 0),
    denied: async (w) => expectRefused(() => w.member.insertLicense(licenseRow('member-license'))),
  },
  listLicenses: {
    allowed: async (w) => assert.ok(Array.isArray(await w.owner.listLicenses())),
    // Filtered, not refused: licenses are all or nothing, and a member sees none.
    denied: async (w) => {
      await w.owner.insertLicense(licenseRow('listed-license'));
      assert.deepEqual(await w.member.listLicenses(), []);
      await expectRefused(async () => {
        if ((await w.member.listLicenses()).length === 0) throw new NotAuthorizedError('read', 'license');
      });
    },
  },
  deleteLicense: {
    allowed: async (w) => w.owner.deleteLicense((await w.owner.insertLicense(licenseRow('doomed-license'))).id),
    denied: async (w) => expectRefused(async () => w.member.deleteLicense((await w.owner.insertLicense(licenseRow('kept-license'))).id)),
  },
  getEntitlementInputs: {
    allowed: async (w) => assert.ok((await system(w, 'entitlements').getEntitlementInputs()).activeUsers >= 1),
    denied: async (w) => expectRefused(() => w.member.getEntitlementInputs()),
  },
  recordUsageMinutes: {
    allowed: async (w) => w.member.recordUsageMinutes((await workspaceFixture(w, w.member)).workspace, [usageMinute]),
    denied: async (w) =>
      expectRefused(async () => w.member.recordUsageMinutes((await workspaceFixture(w, w.owner)).workspace, [usageMinute])),
  },
  getDailyActiveUsers: {
    allowed: async (w) => assert.deepEqual(await w.owner.getDailyActiveUsers({ from: 0, to: 1 }, 0), []),
    denied: async (w) => expectRefused(() => w.member.getDailyActiveUsers({ from: 0, to: 1 }, 0)),
  },
  getTemplateDailyActiveUsers: {
    allowed: async (w) =>
      assert.deepEqual(await w.member.getTemplateDailyActiveUsers((await templateFixture(w)).template, { from: 0, to: 1 }, 0), []),
    denied: async (w) =>
      expectRefused(async () => w.outsider.getTemplateDailyActiveUsers((await templateFixture(w)).template, { from: 0, to: 1 }, 0)),
  },
  getTemplateInsights: {
    allowed: async (w) =>
      assert.equal(
        (await w.owner.getTemplateInsights([], { from: 0, to: 1, fromIso: '1970', toIso: '1971', intervalMinutes: 1440 })).total.users,
        0,
      ),
    denied: async (w) =>
      expectRefused(() => w.member.getTemplateInsights([], { from: 0, to: 1, fromIso: '1970', toIso: '1971', intervalMinutes: 1440 })),
  },
  getUserActivityInsights: {
    allowed: async (w) => assert.deepEqual(await w.owner.getUserActivityInsights([], { from: 0, to: 1 }), []),
    denied: async (w) => expectRefused(() => w.member.getUserActivityInsights([], { from: 0, to: 1 })),
  },
  getUserLatencyInsights: {
    allowed: async (w) => assert.deepEqual(await w.owner.getUserLatencyInsights([], { from: 0, to: 1 }), []),
    denied: async (w) => expectRefused(() => w.member.getUserLatencyInsights([], { from: 0, to: 1 })),
  },
  getUserStatusCounts: {
    allowed: async (w) => assert.ok(Array.isArray(await w.owner.getUserStatusCounts([w.test.clock.now().toISOString()]))),
    denied: async (w) => expectRefused(() => w.member.getUserStatusCounts([w.test.clock.now().toISOString()])),
  },
  touchWorkspace: {
    allowed: async (w) => w.member.touchWorkspace((await workspaceFixture(w, w.member)).workspace),
    denied: async (w) => expectRefused(async () => w.member.touchWorkspace((await workspaceFixture(w, w.owner)).workspace)),
  },
  getWorkspaceBuildByNumber: {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.getWorkspaceBuildByNumber(workspace, 1)).id, build.id);
    },
    denied: async (w) => expectRefused(async () => w.member.getWorkspaceBuildByNumber((await workspaceFixture(w, w.owner)).workspace, 1)),
  },
  getLatestBuild: {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.getLatestBuild(workspace))?.build.id, build.id);
    },
    denied: async (w) => expectRefused(async () => w.member.getLatestBuild((await workspaceFixture(w, w.owner)).workspace)),
  },
  listLatestBuilds: {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.listLatestBuilds([workspace])).get(workspace.id)?.id, build.id);
    },
    denied: async (w) => expectRefused(async () => w.member.listLatestBuilds([(await workspaceFixture(w, w.owner)).workspace])),
  },
  getBuildJob: {
    allowed: async (w) => {
      const { workspace, build, job } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.getBuildJob(workspace, build)).id, job.id);
    },
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.getBuildJob(workspace, build));
    },
  },
  listBuildLogs: {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      assert.deepEqual(await w.member.listBuildLogs(workspace, build, {}), []);
    },
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.listBuildLogs(workspace, build, {}));
    },
  },
  setBuildDeadline: {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      const deadline = w.test.clock.now().toISOString();
      await w.member.setBuildDeadline(workspace, build, deadline);
      assert.equal((await w.member.getLatestBuild(workspace))?.build.deadline, deadline);
    },
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.setBuildDeadline(workspace, build, null));
    },
  },
  getWorkspaceTemplate: {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.getWorkspaceTemplate(workspace)).id, workspace.template_id);
    },
    denied: async (w) => expectRefused(async () => w.member.getWorkspaceTemplate((await workspaceFixture(w, w.owner)).workspace)),
  },
  getWorkspaceTemplateVersion: {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.getWorkspaceTemplateVersion(workspace, build.template_version_id)).id, build.template_version_id);
    },
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.getWorkspaceTemplateVersion(workspace, build.template_version_id));
    },
  },
  listLatestBuildAgents: {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      const { workspace } = await w.member.getWorkspaceAgent(agentId);
      assert.deepEqual(
        (await w.member.listLatestBuildAgents(workspace)).map((a) => a.id),
        [agentId],
      );
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      const { workspace } = await w.owner.getWorkspaceAgent(agentId);
      await expectRefused(() => w.member.listLatestBuildAgents(workspace));
    },
  },
  listBuildAgents: {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      const { workspace, build } = await w.member.getWorkspaceAgent(agentId);
      assert.deepEqual(
        (await w.member.listBuildAgents(workspace, build)).map((a) => a.id),
        [agentId],
      );
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      const { workspace, build } = await w.owner.getWorkspaceAgent(agentId);
      await expectRefused(() => w.member.listBuildAgents(workspace, build));
    },
  },
  listScriptTimings: {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      const { workspace, agent } = await w.member.getWorkspaceAgent(agentId);
      assert.deepEqual(await w.member.listScriptTimings(workspace, [agent]), []);
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      const { workspace, agent } = await w.owner.getWorkspaceAgent(agentId);
      await expectRefused(() => w.member.listScriptTimings(workspace, [agent]));
    },
  },
  listWorkspaceDetails: {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      const { workspace, build, resource } = await w.member.getWorkspaceAgent(agentId);
      const details = await w.member.listWorkspaceDetails([workspace], [build]);
      assert.equal(details.users.get(w.memberId)?.id, w.memberId);
      assert.equal(details.agents.get(resource.id)?.[0]?.id, agentId);
      assert.equal(details.templates.get(workspace.template_id)?.id, workspace.template_id);
    },
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.listWorkspaceDetails([workspace], [build]));
    },
  },
  listWorkspacesDueForLifecycle: {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      await finishJob(w, build.job_id);
      await w.member.setBuildDeadline(workspace, build, w.test.clock.now().toISOString());
      const later = new Date(w.test.clock.now().getTime() + 60_000);
      assert.ok((await w.owner.listWorkspacesDueForLifecycle(later)).some((row) => row.id === workspace.id));
    },
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.owner);
      await finishJob(w, build.job_id);
      await w.owner.setBuildDeadline(workspace, build, w.test.clock.now().toISOString());
      const later = new Date(w.test.clock.now().getTime() + 60_000);
      assert.ok(!(await w.member.listWorkspacesDueForLifecycle(later)).some((row) => row.id === workspace.id));
    },
  },
  listLifecycleFacts: {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      const facts = await w.member.listLifecycleFacts([workspace]);
      assert.equal(facts.builds.get(workspace.id)?.id, build.id);
      assert.equal(facts.ownerStatuses.get(w.memberId), 'active');
    },
    denied: async (w) => expectRefused(async () => w.member.listLifecycleFacts([(await workspaceFixture(w, w.owner)).workspace])),
  },
  getWorkspaceBuild: {
    allowed: async (w) => {
      const { build } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.getWorkspaceBuild(build.id)).build.id, build.id);
    },
    denied: async (w) => {
      const { build } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.getWorkspaceBuild(build.id));
    },
  },
  cancelWorkspaceBuildJob: {
    allowed: async (w) => {
      const { workspace, job } = await workspaceFixture(w, w.member);
      await w.member.cancelWorkspaceBuildJob(workspace, job, cancellation(w));
    },
    denied: async (w) => {
      const { workspace, job } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.cancelWorkspaceBuildJob(workspace, job, cancellation(w)));
    },
  },
  setBuildProvisionerState: {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      await w.owner.setBuildProvisionerState(workspace, build, Buffer.from('{}'));
    },
    // The member owns the workspace but does not manage its template.
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      await expectRefused(() => w.member.setBuildProvisionerState(workspace, build, Buffer.from('{}')));
    },
  },
  listPortShares: {
    allowed: async (w) => assert.deepEqual(await w.member.listPortShares((await workspaceFixture(w, w.member)).workspace), []),
    denied: async (w) => expectRefused(async () => w.member.listPortShares((await workspaceFixture(w, w.owner)).workspace)),
  },
  upsertPortShare: {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      await w.member.upsertPortShare(workspace, {
        workspace_id: workspace.id,
        agent_name: 'main',
        port: 8080,
        share_level: 'public',
        protocol: 'http',
      });
      assert.equal((await w.member.listPortShares(workspace)).length, 1);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      await expectRefused(() =>
        w.member.upsertPortShare(workspace, {
          workspace_id: workspace.id,
          agent_name: 'main',
          port: 8080,
          share_level: 'public',
          protocol: 'http',
        }),
      );
    },
  },
  deletePortShare: {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      await w.member.upsertPortShare(workspace, {
        workspace_id: workspace.id,
        agent_name: 'main',
        port: 8080,
        share_level: 'public',
        protocol: 'http',
      });
      assert.equal(await w.member.deletePortShare(workspace, 'main', 8080), true);
    },
    denied: async (w) => expectRefused(async () => w.member.deletePortShare((await workspaceFixture(w, w.owner)).workspace, 'main', 8080)),
  },
  getWorkspaceAgent: {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      assert.equal((await w.member.getWorkspaceAgent(agentId)).agent.id, agentId);
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      await expectRefused(() => w.member.getWorkspaceAgent(agentId));
    },
  },
  authorizeAgentConnect: {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      w.member.authorizeAgentConnect(await w.member.getWorkspaceAgent(agentId));
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      await expectRefused(async () => w.member.authorizeAgentConnect(await w.owner.getWorkspaceAgent(agentId)));
    },
  },
  listWorkspaceAgentLogs: {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      assert.deepEqual(await w.member.listWorkspaceAgentLogs(await w.member.getWorkspaceAgent(agentId), {}), []);
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      await expectRefused(async () => w.member.listWorkspaceAgentLogs(await w.owner.getWorkspaceAgent(agentId), {}));
    },
  },
  getWorkspaceAgentByTokenHash: {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      assert.equal((await w.member.getWorkspaceAgentByTokenHash(`hash-${agentId}`))?.agent.id, agentId);
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      await expectRefused(() => w.member.getWorkspaceAgentByTokenHash(`hash-${agentId}`));
    },
  },
  authenticateWorkspaceAgent: {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      // The second answer comes from the cache the first one filled.
      for (const cached of [false, true]) {
        const authenticated = await w.member.authenticateWorkspaceAgent(`hash-${agentId}`, { cached });
        assert.deepEqual([authenticated?.found.agent.id, authenticated?.current], [agentId, true]);
      }
    },
    // A cached agent is authorized as a looked-up one is.
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      assert.equal((await w.owner.authenticateWorkspaceAgent(`hash-${agentId}`, { cached: false }))?.current, true);
      await expectRefused(() => w.member.authenticateWorkspaceAgent(`hash-${agentId}`, { cached: true }));
      await expectRefused(() => w.member.authenticateWorkspaceAgent(`hash-${agentId}`, { cached: false }));
    },
  },
  isWorkspaceAgentBuildCurrent: {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      assert.equal(await agentStoreOf(w, found).isWorkspaceAgentBuildCurrent(found), true);
    },
    // An agent's own store reaches its owner's workspaces only.
    denied: async (w) => {
      const mine = await foundAgent(w, w.member);
      await expectRefused(async () => agentStoreOf(w, mine).isWorkspaceAgentBuildCurrent(await foundAgent(w, w.owner)));
    },
  },
  isWorkspaceAgentBuildLatest: {
    allowed: async (w) => assert.equal(await w.member.isWorkspaceAgentBuildLatest(await foundAgent(w, w.member)), true),
    denied: async (w) => expectRefused(async () => w.member.isWorkspaceAgentBuildLatest(await foundAgent(w, w.owner))),
  },
  getWorkspaceAgentRow: {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      assert.equal((await w.member.getWorkspaceAgentRow(found))?.id, found.agent.id);
    },
    denied: async (w) => expectRefused(async () => w.member.getWorkspaceAgentRow(await foundAgent(w, w.owner))),
  },
  updateWorkspaceAgentReport: {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await agentStoreOf(w, found).updateWorkspaceAgentReport(found, { version: 'v1.2.3' });
      assert.equal((await w.member.getWorkspaceAgentRow(found))?.version, 'v1.2.3');
    },
    denied: async (w) => {
      const mine = await foundAgent(w, w.member);
      await expectRefused(async () =>
        agentStoreOf(w, mine).updateWorkspaceAgentReport(await foundAgent(w, w.owner), { version: 'v6.6.6' }),
      );
    },
  },
  markWorkspaceAgentDisconnected: {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await agentStoreOf(w, found).markWorkspaceAgentDisconnected(found, '');
      assert.notEqual((await w.member.getWorkspaceAgentRow(found))?.disconnected_at, null);
    },
    denied: async (w) => expectRefused(async () => w.member.markWorkspaceAgentDisconnected(await foundAgent(w, w.owner), '')),
  },
  insertWorkspaceAgentScriptTiming: {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await agentStoreOf(w, found).insertWorkspaceAgentScriptTiming(found, scriptTiming(w));
    },
    denied: async (w) =>
      expectRefused(async () => w.outsider.insertWorkspaceAgentScriptTiming(await foundAgent(w, w.member), scriptTiming(w))),
  },
  appendWorkspaceAgentLogs: {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      const outcome = await agentStoreOf(w, found).appendWorkspaceAgentLogs(found, logBatch(w));
      assert.equal(outcome.stored, true);
      assert.equal((await w.member.listWorkspaceAgentLogs(found, {})).length, 1);
    },
    denied: async (w) => {
      const mine = await foundAgent(w, w.member);
      await expectRefused(async () => agentStoreOf(w, mine).appendWorkspaceAgentLogs(await foundAgent(w, w.owner), logBatch(w)));
    },
  },
  upsertWorkspaceAgentLogSource: {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await agentStoreOf(w, found).upsertWorkspaceAgentLogSource(found, logSource(w));
    },
    denied: async (w) => expectRefused(async () => w.member.upsertWorkspaceAgentLogSource(await foundAgent(w, w.owner), logSource(w))),
  },
  insertWorkspaceAppStatus: {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await agentStoreOf(w, found).insertWorkspaceAppStatus(found, appStatus(w));
    },
    denied: async (w) => expectRefused(async () => w.member.insertWorkspaceAppStatus(await foundAgent(w, w.owner), appStatus(w))),
  },
  findWorkspaceAgentByInstanceId: {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      const instanceId = await onInstance(w, found.agent.id);
      const byIdentity = w.test.daemon.store.as(SYSTEM_SUBJECTS.instanceIdentity);
      assert.equal((await byIdentity.findWorkspaceAgentByInstanceId(instanceId))?.owners?.agent.id, found.agent.id);
      assert.equal((await w.member.findWorkspaceAgentByInstanceId(instanceId))?.jobType, 'workspace_build');
    },
    denied: async (w) => {
      const found = await foundAgent(w, w.owner);
      const instanceId = await onInstance(w, found.agent.id);
      await expectRefused(() => w.member.findWorkspaceAgentByInstanceId(instanceId));
    },
  },
  replaceWorkspaceAgentToken: {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await w.test.daemon.store.as(SYSTEM_SUBJECTS.instanceIdentity).replaceWorkspaceAgentToken(found, `new-hash-${found.agent.id}`);
      assert.equal((await w.member.getWorkspaceAgentByTokenHash(`new-hash-${found.agent.id}`))?.agent.id, found.agent.id);
    },
    denied: async (w) => {
      const found = await foundAgent(w, w.owner);
      await expectRefused(() => w.member.replaceWorkspaceAgentToken(found, 'stolen'));
    },
  },
  listAgentsOfLatestBuild: {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      assert.deepEqual(
        (await w.member.listAgentsOfLatestBuild(found.workspace)).map((agent) => agent.id),
        [found.agent.id],
      );
    },
    denied: async (w) => expectRefused(async () => w.member.listAgentsOfLatestBuild((await foundAgent(w, w.owner)).workspace)),
  },
  getPortShare: {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      await w.member.upsertPortShare(workspace, {
        workspace_id: workspace.id,
        agent_name: 'main',
        port: 8080,
        share_level: 'public',
        protocol: 'http',
      });
      assert.equal((await w.member.getPortShare(workspace, 'main', 8080))?.share_level, 'public');
      assert.equal(await w.member.getPortShare(workspace, 'main', 8081), undefined);
    },
    denied: async (w) => expectRefused(async () => w.member.getPortShare((await workspaceFixture(w, w.owner)).workspace, 'main', 8080)),
  },
  listWorkspaceAgentLabels: {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      const [label] = await w.owner.listWorkspaceAgentLabels([found.agent.id]);
      assert.equal(label?.owner, 'member');
      assert.equal(label?.workspace, found.workspace.name);
    },
    denied: async (w) => assert.deepEqual(await w.member.listWorkspaceAgentLabels([(await foundAgent(w, w.owner)).agent.id]), []),
  },
};

const allWorkspaces = { filter: {}, limit: 0, offset: 0 };
const everyBuild = { limit: 0, offset: 0 };

const everyone = {
  search: { text: undefined, status: undefined, role: undefined, loginType: undefined },
  limit: 0,
  offset: 0,
  afterId: undefined,
};

function userRow(w: World, username: string) {
  const now = w.test.clock.now().toISOString();
  return {
    id: newId(),
    email: `${username}@example.com`,
    username,
    name: '',
    avatar_url: '',
    hashed_password: '',
    login_type: 'none',
    status: 'active',
    rbac_roles: '[]',
    theme_preference: '',
    hashed_one_time_passcode: null,
    one_time_passcode_expires_at: null,
    deleted: 0,
    created_at: now,
    updated_at: now,
    last_seen_at: now,
  };
}

/** The store as one of the named system subjects sees it. */
function signInState(w: World, stateHash: string) {
  return {
    state_hash: stateHash,
    provider: 'oidc',
    nonce: 'nonce',
    code_verifier: 'verifier',
    redirect: '/',
    convert_user_id: null,
    expires_at: new Date(w.test.clock.now().getTime() + 60_000).toISOString(),
  };
}

function system(w: World, name: keyof typeof SYSTEM_SUBJECTS): AuthorizedStore {
  return w.test.daemon.store.as(SYSTEM_SUBJECTS[name]);
}

const subjectOptions = { disableOwnerWorkspaceExec: false };

function defaultOrg(w: World): string {
  return w.test.daemon.identity.defaultOrganization.id;
}

let fixtureCount = 0;

/** An import job and a version for no template yet, inserted by `store` (which may be refused). */
async function versionFixture(w: World, store: AuthorizedStore) {
  const now = w.test.clock.now().toISOString();
  const n = ++fixtureCount;
  const { file } = await w.owner.saveFile(fileRow(w, w.ownerId, `fixture-${n}`));
  const job = {
    id: newId(),
    organization_id: defaultOrg(w),
    type: 'template_version_import',
    provisioner: 'echo',
    storage_method: 'file',
    file_id: file.id,
    initiator_id: w.ownerId,
    input: '{}',
    tags: '{}',
    created_at: now,
    updated_at: now,
    started_at: null,
    completed_at: null,
    canceled_at: null,
    error: '',
    error_code: '',
    worker_id: null,
  };
  const version = {
    id: newId(),
    template_id: null,
    organization_id: defaultOrg(w),
    name: `v${n}`,
    message: '',
    readme: '',
    job_id: job.id,
    created_by: w.ownerId,
    created_at: now,
    updated_at: now,
    archived: 0,
    variables: '[]',
    parameters: '[]',
    presets: '[]',
    external_auth: '[]',
  };
  await store.insertTemplateVersion(version, job);
  return { version, job };
}

function fixtureTemplate(w: World, versionId: string) {
  return templateRow(
    {
      id: newId(),
      organization_id: defaultOrg(w),
      name: `fixture-${++fixtureCount}`,
      active_version_id: versionId,
      created_by: w.ownerId,
      created_at: w.test.clock.now().toISOString(),
    },
    { activity_bump_ms: 3_600_000 },
  );
}

/** A template everyone in the default organization may use, with one version. */
async function templateFixture(w: World) {
  const { version } = await versionFixture(w, w.owner);
  return { template: await w.owner.insertTemplate(fixtureTemplate(w, version.id)) };
}

/** A dry run by the owner of a template's version. */
async function dryRunFixture(w: World) {
  const { template } = await templateFixture(w);
  const { version, job } = await w.owner.getTemplateVersion(template.active_version_id);
  const dryRun = {
    ...job,
    id: newId(),
    type: 'template_version_dry_run',
    initiator_id: w.ownerId,
    input: JSON.stringify({ template_version_id: version.id }),
  };
  await w.owner.insertDryRunJob(version, dryRun);
  return { version, dryRun };
}

/** A workspace of the subject's own, created by it from a template everyone may use. */
async function workspaceFixture(w: World, store: AuthorizedStore) {
  const { template } = await templateFixture(w);
  const { version, job: importJob } = await w.owner.getTemplateVersion(template.active_version_id);
  const now = w.test.clock.now().toISOString();
  const ownerId = store.subject.id;
  const workspace = {
    id: newId(),
    organization_id: defaultOrg(w),
    owner_id: ownerId,
    template_id: template.id,
    name: `ws-${++fixtureCount}`,
    created_at: now,
    updated_at: now,
    deleted: 0,
    autostart_schedule: null,
    ttl_ms: null,
    last_used_at: now,
    dormant_at: null,
    deleting_at: null,
    automatic_updates: 'never',
    favorite: 0,
    latest_build_status: null,
  };
  const job = { ...importJob, id: newId(), type: 'workspace_build', initiator_id: ownerId, input: '{}' };
  const build = {
    id: newId(),
    workspace_id: workspace.id,
    template_version_id: version.id,
    build_number: 1,
    transition: 'start',
    initiator_id: ownerId,
    job_id: job.id,
    reason: 'initiator',
    provisioner_state: null,
    deadline: null,
    max_deadline: null,
    daily_cost: 0,
    rich_parameter_values: '[]',
    template_version_preset_id: null,
    created_at: now,
    updated_at: now,
  };
  await store.insertWorkspace(store.grantWorkspaceCreation(ownerId, template), workspace, { build, job, orphan: false });
  return { workspace, build, job };
}

/** A workspace of the subject's with one agent on its first build's resource, as a finished build leaves it. */
async function agentFixture(w: World, store: AuthorizedStore) {
  const { job } = await workspaceFixture(w, store);
  const now = w.test.clock.now().toISOString();
  const resourceId = newId();
  const agentId = newId();
  const db = w.test.daemon.store.db;
  await db
    .insertInto('workspace_resources')
    .values({
      id: resourceId,
      job_id: job.id,
      transition: 'start',
      name: 'box',
      type: 'echo',
      hide: 0,
      icon: '',
      daily_cost: 0,
      metadata: '[]',
      planned_agents: '[]',
      created_at: now,
    })
    .execute();
  await db
    .insertInto('workspace_agents')
    .values({
      id: agentId,
      resource_id: resourceId,
      name: 'main',
      auth_token_hash: `hash-${agentId}`,
      definition: '{}',
      lifecycle_state: 'created',
      created_at: now,
      updated_at: now,
      first_connected_at: null,
      last_connected_at: null,
      disconnected_at: null,
      started_at: null,
      ready_at: null,
    })
    .execute();
  return { agentId };
}

/** Marks a job as done, as a provisioner daemon would. */
async function finishJob(w: World, jobId: string): Promise<void> {
  const at = w.test.clock.now().toISOString();
  await w.test.daemon.store.db.updateTable('provisioner_jobs').set({ started_at: at, completed_at: at }).where('id', '=', jobId).execute();
}

/** A new agent of the subject's, as the owner (who may read every workspace) finds it. */
async function foundAgent(w: World, store: AuthorizedStore) {
  const { agentId } = await agentFixture(w, store);
  return w.owner.getWorkspaceAgent(agentId);
}

/** The store as the agent itself sees it, once its token has named it. */
function agentStoreOf(w: World, found: { readonly workspace: { readonly owner_id: string; readonly organization_id: string } }) {
  return w.test.daemon.store.as(workspaceAgentSubject(found.workspace));
}

/** Gives an agent a cloud instance id, as a template that sets `instance_id` does. */
async function onInstance(w: World, agentId: string): Promise<string> {
  const instanceId = `i-${agentId}`;
  await w.test.daemon.store.db.updateTable('workspace_agents').set({ auth_instance_id: instanceId }).where('id', '=', agentId).execute();
  return instanceId;
}

function scriptTiming(w: World) {
  const now = w.test.clock.now().toISOString();
  return { script_id: newId(), stage: 'start', status: 'ok', exit_code: 0, started_at: now, ended_at: now };
}

function logBatch(w: World) {
  const now = w.test.clock.now().toISOString();
  return { sourceId: newId(), lines: [[now, 'info', 'hello'] as const], bytes: 5, maxBytes: 1024 };
}

function logSource(w: World) {
  return { id: newId(), display_name: 'Startup', icon: '', created_at: w.test.clock.now().toISOString() };
}

function appStatus(w: World) {
  const now = w.test.clock.now().toISOString();
  return { id: newId(), app_id: newId(), state: 'working', message: 'busy', uri: '', created_at: now };
}

/** A new job row like `job`, for a further build. */
async function nextJob(w: World, job: { readonly id: string }) {
  const row = await w.test.daemon.store.db.selectFrom('provisioner_jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
  return { ...row, id: newId() };
}

const SHARE_LEVELS = ['owner', 'organization', 'authenticated', 'public'];

/** The store as the provisioner daemon's system subject sees it. */
const UNTAGGED = { scope: 'organization', owner: '' };

/** The next queued echo job, claimed for `workerId` as an untagged daemon would. */
async function claimNext(w: World, workerId: string): Promise<ProvisionerJobRow | undefined> {
  return (await provisioner(w).claimNextProvisionerJob(defaultOrg(w), { workerId, provisioners: ['echo'], tags: UNTAGGED }))?.job;
}

/** Claims whatever echo jobs earlier cases left queued, so that the next one claimed is the case's own. */
async function drainQueue(w: World): Promise<void> {
  const drainer = newId();
  while (await claimNext(w, drainer));
}

function provisioner(w: World): AuthorizedStore {
  return w.test.daemon.store.as(SYSTEM_SUBJECTS.provisionerDaemon);
}

/** The store as the job reaper's system subject sees it. */
/** How a cancel treats started jobs when no daemon is connected here. */
function cancellation(w: World): JobCancellation {
  return new ConnectedDaemons().cancellation(w.test.clock.now());
}

function reaper(w: World): AuthorizedStore {
  return w.test.daemon.store.as(SYSTEM_SUBJECTS.jobReaper);
}

function daemonRow(w: World) {
  const now = w.test.clock.now().toISOString();
  return {
    id: newId(),
    organization_id: defaultOrg(w),
    name: 'accounting-daemon',
    provisioners: '["echo"]',
    tags: '{}',
    key_id: null,
    version: '',
    api_version: '1.0',
    created_at: now,
    last_seen_at: now,
  };
}

function logLine(w: World) {
  return { created_at: w.test.clock.now().toISOString(), source: 'provisioner', level: 'info', stage: 'Planning', output: 'hello' };
}

function completion(w: World, version: { readonly readme?: string }) {
  return { now: w.test.clock.now().toISOString(), version, resources: [], agents: [] };
}

function keyRow(w: World, name: string) {
  return {
    id: newId(),
    organization_id: defaultOrg(w),
    name,
    hashed_secret: `hash-${name}`,
    tags: '{}',
    created_at: w.test.clock.now().toISOString(),
  };
}

function fileRow(w: World, createdBy: string, content: string) {
  const data = Buffer.from(content);
  return {
    id: newId(),
    hash: `hash-${content}`,
    created_by: createdBy,
    created_at: w.test.clock.now().toISOString(),
    mimetype: 'application/x-tar',
    size: data.length,
    data,
  };
}

function orgRow(w: World, name: string) {
  const now = w.test.clock.now().toISOString();
  return { id: newId(), name, display_name: name, description: '', icon: '', is_default: 0, created_at: now, updated_at: now };
}

function customRole(w: World, name: string) {
  return { name, display_name: name, organization_id: defaultOrg(w), site: [], org: [], user: [] };
}

function key(w: World, userId: string, name: string) {
  return newApiKey({
    userId,
    loginType: 'token',
    scope: 'all',
    lifetimeMs: 3_600_000,
    tokenName: name,
    ipAddress: '',
    now: w.test.clock.now(),
  }).row;
}

async function expectRefused(call: () => Promise<unknown>): Promise<void> {
  await assert.rejects(call, (error: unknown) => error instanceof NotAuthorizedError);
}

function storeMethods(): string[] {
  return Object.getOwnPropertyNames(AuthorizedStore.prototype).filter((name) => name !== 'constructor');
}

describe('authorizing store accounting', () => {
  let world: World;
  before(async () => {
    const test = await startTestDaemon();
    const ownerClient = await createOwner(test);
    const memberClient = await createMember(test, 'member');
    const ownerId = (await ownerClient.user('me')).id;
    const memberId = (await memberClient.user('me')).id;
    const store = test.daemon.store;
    const subjectOf = async (token: string | undefined) => {
      const { authenticate } = await import('../../src/domain/authentication.js');
      const { resolveOptions } = await import('../../src/domain/deployment-options.js');
      const { SYSTEM_SUBJECTS } = await import('../../src/rbac/system-subjects.js');
      const presented = { token, ipAddress: '', now: test.clock.now() };
      return (await authenticate(store.as(SYSTEM_SUBJECTS.authenticator), resolveOptions({}).values, presented)).subject;
    };
    world = {
      test,
      ownerId,
      memberId,
      owner: store.as(await subjectOf(ownerClient.token)),
      member: store.as(await subjectOf(memberClient.token)),
      // A signed-in user who belongs to no organization and holds no site role.
      outsider: store.as(userSubject({ id: '99999999-9999-4999-8999-999999999999', siteRoleNames: [], orgRoles: {} })),
    };
  });
  after(async () => world.test.close());

  it('has an authorization case for every method', () => {
    const missing = storeMethods().filter((name) => !(name in CASES));
    assert.deepEqual(missing, [], `authorizing store methods without an authorization case: ${missing.join(', ')}`);
  });

  for (const [method, testCase] of Object.entries(CASES)) {
    it(`${method}: allows the entitled subject and refuses the other`, async () => {
      await testCase.allowed(world);
      await testCase.denied(world);
    });
  }
});
