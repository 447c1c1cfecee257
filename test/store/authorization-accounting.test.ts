import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConnectedDaemons } from '../../src/domain/connected-daemons.js';
import { newApiKey } from '../../src/domain/sessions.js';
import { NotAuthorizedError, NotFoundError } from '../../src/lib/errors.js';
import { OutrankedError } from '../../src/lib/outranked-error.js';
import { newId } from '../../src/lib/random.js';
import { SYSTEM_SUBJECTS, userSubject, workspaceAgentSubject } from '../../src/rbac/index.js';
import { StoreFamily } from '../../src/store/authorized/store-family.js';
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
/** An audit entry as the API's hook writes one. */
function auditRow(userId: string) {
  return {
    id: newId(),
    time: '2026-01-05T10:00:00.000Z',
    user_id: userId,
    organization_id: '',
    ip: '127.0.0.1',
    user_agent: 'test',
    resource_type: 'template',
    resource_id: '',
    resource_target: '',
    resource_icon: '',
    action: 'delete',
    diff: '{}',
    status_code: 403,
    additional_fields: '{}',
    request_id: newId(),
  };
}

/** A stored license row; its token is not checked by the store. */
function licenseRow(name: string) {
  return { uuid: newId(), jwt: name, uploaded_at: '2026-01-05T10:00:00.000Z', exp: '2027-01-01T00:00:00.000Z' };
}

/** A connection log row of a made-up workspace of the default organization. */
function connectionLogRow(w: World, name: string) {
  const id = newId();
  return {
    id,
    connect_time: '2026-01-05T10:00:00.000Z',
    organization_id: defaultOrg(w),
    workspace_owner_id: w.memberId,
    workspace_id: newId(),
    workspace_name: name,
    agent_name: 'main',
    type: 'ssh',
    ip: '127.0.0.1',
    user_id: w.memberId,
    user_agent: '',
    slug_or_port: '',
    code: null,
    connection_id: id,
    disconnect_time: null,
    disconnect_reason: '',
    bytes_to_workspace: 0,
    bytes_from_workspace: 0,
    replica_id: '',
  };
}

/** How a connection of the store's cases ends. */
const connectionLogEnd = {
  disconnect_time: '2026-01-05T10:05:00.000Z',
  disconnect_reason: 'the client disconnected',
  code: 0,
  bytes_to_workspace: 10,
  bytes_from_workspace: 20,
};

/** Sign-in pacing for the store's cases: two attempts free, then a minute's wait. */
const pacing = { backoffMs: (failures: number) => (failures >= 2 ? 60_000 : 0), forgetAfterMs: 3_600_000 };

/** A minute of SSH use, for the usage recording case. */
const usageMinute = { minute: 29_000_000, kind: 'ssh', app_slug: '', app_display_name: '', app_icon: '', latency_ms: 0 };
/** A whole list of available users: no search, no page. */
const ANY_USER = { search: '', limit: 0, offset: 0 };

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
      const { found } = await w.owner.urgent().workspaces.getWithLatestBuilds([workspace.id]);
      assert.equal(found.get(workspace.id)?.workspace.id, workspace.id);
      assert.equal(w.member.urgent().subject, w.member.subject);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      const { found, refused } = await w.member.urgent().workspaces.getWithLatestBuilds([workspace.id]);
      assert.equal(found.size, 0);
      assert.deepEqual([...refused], [workspace.id]);
    },
  },
  'users.get': {
    allowed: async (w) => assert.equal((await w.member.users.get('me')).id, w.memberId),
    denied: async (w) => {
      await expectRefused(() => w.member.users.get(w.ownerId));
      // A row handed in as the caller's own is still checked against the caller.
      const ownerRow = await w.owner.users.get('me');
      await expectRefused(() => w.member.users.get(w.ownerId, ownerRow));
    },
  },
  'users.organizationIds': {
    allowed: async (w) => assert.equal((await w.owner.users.organizationIds(w.memberId)).length, 1),
    denied: async (w) => expectRefused(() => w.member.users.organizationIds(w.ownerId)),
  },
  'users.organizationIdsOf': {
    allowed: async (w) => assert.equal((await w.owner.users.organizationIdsOf([w.ownerId, w.memberId])).get(w.memberId)?.length, 1),
    denied: async (w) => expectRefused(() => w.member.users.organizationIdsOf([w.memberId, w.ownerId])),
  },
  'organizations.get': {
    allowed: async (w) => assert.equal((await w.member.organizations.get('default')).is_default, 1),
    denied: async (w) => expectRefused(() => w.outsider.organizations.get('default')),
  },
  'organizations.list': {
    allowed: async (w) => assert.equal((await w.member.organizations.list()).length, 1),
    denied: async (w) => assert.deepEqual(await w.outsider.organizations.list(), []),
  },
  'roles.listCustom': {
    allowed: async (w) => assert.deepEqual(await w.member.roles.listCustom((await w.member.organizations.get('default')).id), []),
    denied: async (w) => expectRefused(async () => w.outsider.roles.listCustom((await w.owner.organizations.get('default')).id)),
  },
  'users.list': {
    allowed: async (w) => assert.ok((await w.owner.users.list(everyone)).rows.some((u) => u.id === w.memberId)),
    denied: async (w) =>
      assert.deepEqual(
        (await w.member.users.list(everyone)).rows.map((u) => u.id),
        [w.memberId],
      ),
  },
  'users.insert': {
    allowed: async (w) => w.owner.users.insert(userRow(w, 'made-by-owner'), []),
    denied: async (w) => expectRefused(() => w.member.users.insert(userRow(w, 'made-by-member'), [])),
  },
  'users.update': {
    allowed: async (w) => w.member.users.update(w.memberId, 'personal', { name: 'Member M' }),
    denied: async (w) => expectRefused(() => w.member.users.update(w.memberId, 'admin', { status: 'suspended' })),
  },
  'users.gitSshKey': {
    allowed: async (w) => {
      const key = await w.member.users.gitSshKey('me');
      assert.equal(key.user_id, w.memberId);
      assert.match(key.public_key, /^ssh-ed25519 /);
    },
    denied: async (w) => expectRefused(() => w.member.users.gitSshKey(w.ownerId)),
  },
  'users.regenerateGitSshKey': {
    allowed: async (w) => {
      const before = await w.owner.users.gitSshKey(w.memberId);
      assert.notEqual((await w.owner.users.regenerateGitSshKey(w.memberId)).public_key, before.public_key);
    },
    denied: async (w) => expectRefused(() => w.member.users.regenerateGitSshKey(w.ownerId)),
  },
  'users.setSiteRoles': {
    allowed: async (w) => w.owner.users.setSiteRoles(w.memberId, [], { added: false, removed: true }),
    denied: async (w) => expectRefused(() => w.member.users.setSiteRoles(w.memberId, ['owner'], { added: true, removed: false })),
  },
  'userSettings.appearance': {
    allowed: async (w) => assert.equal((await w.member.userSettings.appearance(w.memberId)).terminal_font, ''),
    denied: async (w) => expectRefused(() => w.member.userSettings.appearance(w.ownerId)),
  },
  'userSettings.setAppearance': {
    allowed: async (w) => {
      await w.member.userSettings.setAppearance(w.memberId, { theme_preference: 'light', terminal_font: 'fira-code' });
      assert.equal((await w.owner.userSettings.appearance(w.memberId)).terminal_font, 'fira-code');
    },
    denied: async (w) =>
      expectRefused(() => w.member.userSettings.setAppearance(w.ownerId, { theme_preference: 'dark', terminal_font: '' })),
  },
  'userSettings.preferences': {
    allowed: async (w) => assert.equal((await w.member.userSettings.preferences(w.memberId)).task_notification_alert_dismissed, false),
    denied: async (w) => expectRefused(() => w.member.userSettings.preferences(w.ownerId)),
  },
  'userSettings.setPreferences': {
    allowed: async (w) => w.member.userSettings.setPreferences(w.memberId, { task_notification_alert_dismissed: true }),
    denied: async (w) => expectRefused(() => w.member.userSettings.setPreferences(w.ownerId, { task_notification_alert_dismissed: true })),
  },
  'userSettings.autofillParameters': {
    allowed: async (w) => assert.ok(Array.isArray(await w.member.userSettings.autofillParameters(w.memberId, newId()))),
    denied: async (w) => expectRefused(() => w.member.userSettings.autofillParameters(w.ownerId, newId())),
  },
  'workspaceSharing.availableUsers': {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      const offered = await w.member.workspaceSharing.availableUsers(workspace.id, { search: '', limit: 0, offset: 0 });
      assert.ok(offered.some((user) => user.id === w.ownerId));
      assert.ok(!offered.some((user) => user.id === w.memberId));
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaceSharing.availableUsers(workspace.id, { search: '', limit: 0, offset: 0 }));
    },
  },
  'workspaceSharing.acl': {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      assert.deepEqual((await w.member.workspaceSharing.acl(workspace.id)).users, []);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaceSharing.acl(workspace.id));
    },
  },
  'workspaceSharing.updateAcl': {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      await w.member.workspaceSharing.updateAcl(workspace.id, { users: new Map([[w.ownerId, ['read']]]), groups: new Map() });
      assert.equal((await w.member.workspaceSharing.acl(workspace.id)).users.length, 1);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      await expectRefused(() =>
        w.member.workspaceSharing.updateAcl(workspace.id, { users: new Map([[w.memberId, ['read']]]), groups: new Map() }),
      );
    },
  },
  'workspaceSharing.clearAcl': {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      await w.member.workspaceSharing.clearAcl(workspace.id);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaceSharing.clearAcl(workspace.id));
    },
  },
  'workspaceSharing.sharingDisabled': {
    allowed: async (w) => assert.equal(await w.member.workspaceSharing.sharingDisabled(defaultOrg(w)), false),
    denied: async (w) => expectRefused(() => w.outsider.workspaceSharing.sharingDisabled(defaultOrg(w))),
  },
  'workspaceSharing.setSharingDisabled': {
    allowed: async (w) => {
      await w.owner.workspaceSharing.setSharingDisabled(defaultOrg(w), false);
      assert.equal(await w.owner.workspaceSharing.sharingDisabled(defaultOrg(w)), false);
    },
    denied: async (w) => expectRefused(() => w.member.workspaceSharing.setSharingDisabled(defaultOrg(w), true)),
  },
  'workspaceQuota.get': {
    allowed: async (w) => {
      assert.deepEqual(await w.member.workspaceQuota.get(w.memberId, defaultOrg(w)), { consumed: 0, budget: 0, inUse: false });
      assert.equal((await w.owner.workspaceQuota.get(w.memberId, defaultOrg(w))).consumed, 0);
    },
    denied: async (w) => expectRefused(() => w.member.workspaceQuota.get(w.ownerId, defaultOrg(w))),
  },
  'workspaceQuota.planStart': {
    allowed: async (w) => {
      const planned = {
        id: newId(),
        organization_id: defaultOrg(w),
        owner_id: w.memberId,
        dormant_at: null,
        user_acl: '{}',
        group_acl: '{}',
      };
      assert.equal((await w.member.workspaceQuota.planStart(planned, newId())).cost, 0);
    },
    denied: async (w) => {
      const planned = {
        id: newId(),
        organization_id: defaultOrg(w),
        owner_id: w.ownerId,
        dormant_at: null,
        user_acl: '{}',
        group_acl: '{}',
      };
      await expectRefused(() => w.member.workspaceQuota.planStart(planned, newId()));
    },
  },
  'workspaceQuota.planQueuedStart': {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      const plan = await w.member.workspaceQuota.planQueuedStart(build, workspace);
      assert.deepEqual([plan.cost, plan.replacedCost, plan.inUse], [0, 0, false]);
    },
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaceQuota.planQueuedStart(build, workspace));
    },
  },
  'appearance.get': {
    // Every signed-in user reads it; system work needs read on the deployment config.
    allowed: async (w) => w.outsider.appearance.get(),
    denied: async (w) => expectRefused(() => system(w, 'userDormancy').appearance.get()),
  },
  'appearance.set': {
    allowed: async (w) => {
      await w.owner.appearance.set('{"application_name":"Acme","logo_url":""}');
      assert.equal(await w.member.appearance.get(), '{"application_name":"Acme","logo_url":""}');
    },
    denied: async (w) => expectRefused(() => w.member.appearance.set('{}')),
  },
  'users.delete': {
    allowed: async (w) => {
      const row = await w.owner.users.insert(userRow(w, 'doomed'), []);
      await w.owner.users.delete(row.id);
    },
    denied: async (w) => expectRefused(() => w.member.users.delete(w.memberId)),
  },
  'tokens.deleteAll': {
    allowed: async (w) => {
      const row = await w.owner.users.insert(userRow(w, 'keyless'), []);
      await w.owner.tokens.deleteAll(row.id);
    },
    denied: async (w) => expectRefused(() => w.outsider.tokens.deleteAll(w.memberId)),
  },
  requireOutranks: {
    // Owners may act on anyone; a member on nobody holding a role, such as the owner.
    allowed: async (w) => {
      await w.owner.requireOutranks(w.memberId);
      await w.member.requireOutranks(w.memberId);
    },
    denied: async (w) => assert.rejects(() => w.member.requireOutranks(w.ownerId), OutrankedError),
  },
  'organizations.create': {
    allowed: async (w) => w.owner.organizations.create(orgRow(w, 'made-by-owner')),
    denied: async (w) => expectRefused(() => w.member.organizations.create(orgRow(w, 'made-by-member'))),
  },
  'organizations.update': {
    allowed: async (w) => w.owner.organizations.update('made-by-owner', { description: 'changed' }),
    denied: async (w) => expectRefused(() => w.member.organizations.update('default', { description: 'mine now' })),
  },
  'organizations.delete': {
    allowed: async (w) => {
      await w.owner.organizations.create(orgRow(w, 'short-lived'));
      await w.owner.organizations.delete('short-lived');
    },
    denied: async (w) => expectRefused(() => w.member.organizations.delete('default')),
  },
  'members.list': {
    allowed: async (w) => assert.ok((await w.owner.members.list(defaultOrg(w), { limit: 0, offset: 0 })).rows.length >= 2),
    denied: async (w) =>
      assert.deepEqual(
        (await w.member.members.list(defaultOrg(w), { limit: 0, offset: 0 })).rows.map((r) => r.user_id),
        [w.memberId],
      ),
  },
  'members.add': {
    allowed: async (w) => w.owner.members.add((await w.owner.organizations.get('made-by-owner')).id, w.memberId),
    denied: async (w) => expectRefused(async () => w.member.members.add((await w.owner.organizations.get('made-by-owner')).id, w.ownerId)),
  },
  'members.remove': {
    allowed: async (w) => w.owner.members.remove((await w.owner.organizations.get('made-by-owner')).id, w.memberId),
    denied: async (w) => expectRefused(() => w.member.members.remove(defaultOrg(w), w.ownerId)),
  },
  'members.get': {
    allowed: async (w) => assert.equal((await w.member.members.get(defaultOrg(w), w.memberId)).user_id, w.memberId),
    denied: async (w) => expectRefused(() => w.member.members.get(defaultOrg(w), w.ownerId)),
  },
  'members.setRoles': {
    allowed: async (w) => w.owner.members.setRoles(defaultOrg(w), w.memberId, [], { added: false, removed: true }),
    denied: async (w) =>
      expectRefused(() => w.member.members.setRoles(defaultOrg(w), w.memberId, ['organization-admin'], { added: true, removed: false })),
  },
  'roles.saveCustom': {
    allowed: async (w) => w.owner.roles.saveCustom(customRole(w, 'accounting'), 'create'),
    denied: async (w) => expectRefused(() => w.member.roles.saveCustom(customRole(w, 'accounting'), 'update')),
  },
  'roles.deleteCustom': {
    allowed: async (w) => assert.equal(await w.owner.roles.deleteCustom(defaultOrg(w), 'accounting'), true),
    denied: async (w) => expectRefused(() => w.member.roles.deleteCustom(defaultOrg(w), 'accounting')),
  },
  'tokens.insert': {
    allowed: async (w) => w.member.tokens.insert(key(w, w.memberId, 'mine')),
    denied: async (w) => expectRefused(() => w.member.tokens.insert(key(w, w.ownerId, 'not-mine'))),
  },
  'tokens.get': {
    allowed: async (w) => {
      const row = await w.member.tokens.insert(key(w, w.memberId, 'readable'));
      assert.equal((await w.owner.tokens.get(w.memberId, row.id)).id, row.id);
    },
    denied: async (w) => {
      const row = await w.owner.tokens.insert(key(w, w.ownerId, 'owner-secret'));
      await expectRefused(() => w.member.tokens.get(w.ownerId, row.id));
    },
  },
  'tokens.delete': {
    allowed: async (w) => {
      const row = await w.member.tokens.insert(key(w, w.memberId, 'deletable'));
      await w.member.tokens.delete(w.memberId, row.id);
    },
    denied: async (w) => {
      const row = await w.owner.tokens.insert(key(w, w.ownerId, 'undeletable'));
      await expectRefused(() => w.member.tokens.delete(w.ownerId, row.id));
    },
  },
  'tokens.list': {
    allowed: async (w) => {
      await w.member.tokens.insert(key(w, w.memberId, 'listed'));
      assert.ok((await w.owner.tokens.list('all')).some((t) => t.user_id === w.memberId));
    },
    denied: async (w) => {
      await w.owner.tokens.insert(key(w, w.ownerId, 'hidden'));
      const seen = await w.member.tokens.list('all');
      assert.ok(seen.length > 0 && seen.every((t) => t.user_id === w.memberId));
      assert.deepEqual(await w.member.tokens.list(w.ownerId), []);
    },
  },
  'users.getByEmail': {
    allowed: async (w) => assert.equal((await w.member.users.getByEmail('MEMBER@example.com')).id, w.memberId),
    denied: async (w) => expectRefused(() => w.member.users.getByEmail('owner@example.com')),
  },
  'users.insertFirst': {
    // Allowed, and refused by the data: the first user exists already, so nothing is written.
    allowed: async (w) => assert.equal(await system(w, 'firstUser').users.insertFirst(userRow(w, 'second-first'), defaultOrg(w)), false),
    denied: async (w) => expectRefused(() => w.member.users.insertFirst(userRow(w, 'self-made-owner'), defaultOrg(w))),
  },
  'users.insertSiteAdmin': {
    // The first user exists already, so the claim is left as it is and only the administrator is added.
    allowed: async (w) => {
      const row = await system(w, 'siteAdminCreation').users.insertSiteAdmin({ ...userRow(w, 'site-admin'), rbac_roles: '["owner"]' }, [
        defaultOrg(w),
      ]);
      assert.deepEqual(await w.owner.users.organizationIds(row.id), [defaultOrg(w)]);
    },
    denied: async (w) =>
      expectRefused(() => w.member.users.insertSiteAdmin({ ...userRow(w, 'self-made-admin'), rbac_roles: '["owner"]' }, [])),
  },
  'users.hasFirst': {
    allowed: async (w) => assert.equal(await system(w, 'firstUser').users.hasFirst(), true),
    denied: async (w) => expectRefused(() => w.member.users.hasFirst()),
  },
  'users.recordSeen': {
    allowed: async (w) => system(w, 'authenticator').users.recordSeen(w.memberId, { last_seen_at: w.test.clock.now().toISOString() }),
    denied: async (w) => expectRefused(() => w.member.users.recordSeen(w.memberId, { status: 'active' })),
  },
  'signIn.getUserByLink': {
    allowed: async (w) => {
      const made = await system(w, 'externalSignIn').signIn.insertLinkedUser(
        { ...userRow(w, 'linked-read'), login_type: 'github' },
        [],
        'gh-read',
      );
      assert.equal((await system(w, 'externalSignIn').signIn.getUserByLink('github', 'gh-read'))?.id, made.id);
    },
    denied: async (w) => {
      await system(w, 'externalSignIn').signIn.insertLinkedUser({ ...userRow(w, 'linked-hidden'), login_type: 'github' }, [], 'gh-hidden');
      await expectRefused(() => w.member.signIn.getUserByLink('github', 'gh-hidden'));
    },
  },
  'signIn.insertLinkedUser': {
    allowed: async (w) =>
      system(w, 'externalSignIn').signIn.insertLinkedUser({ ...userRow(w, 'signed-up') }, [defaultOrg(w)], 'oidc-signed-up'),
    denied: async (w) => expectRefused(() => w.member.signIn.insertLinkedUser(userRow(w, 'self-signed-up'), [], 'oidc-self')),
  },
  'signIn.linkUser': {
    allowed: async (w) => {
      const member = await w.owner.users.get(w.memberId);
      assert.equal(await system(w, 'externalSignIn').signIn.linkUser(member, 'oidc', 'oidc-member', { fromPassword: false }), true);
    },
    denied: async (w) => {
      const owner = await w.owner.users.get(w.ownerId);
      await expectRefused(() => w.member.signIn.linkUser(owner, 'oidc', 'oidc-owner', { fromPassword: true }));
    },
  },
  'signIn.insertState': {
    allowed: async (w) => system(w, 'externalSignIn').signIn.insertState(signInState(w, 'allowed-state')),
    denied: async (w) => expectRefused(() => w.member.signIn.insertState(signInState(w, 'denied-state'))),
  },
  'signIn.takeState': {
    allowed: async (w) => {
      await system(w, 'externalSignIn').signIn.insertState(signInState(w, 'taken-state'));
      assert.equal((await system(w, 'externalSignIn').signIn.takeState('taken-state'))?.nonce, 'nonce');
      assert.equal(await system(w, 'externalSignIn').signIn.takeState('taken-state'), undefined);
    },
    denied: async (w) => expectRefused(() => w.member.signIn.takeState('taken-state')),
  },
  'idpSync.apply': {
    allowed: async (w) => {
      const member = await w.owner.users.get(w.memberId);
      const request = { loginType: 'oidc', claims: { groups: ['synced'] }, organizationId: defaultOrg(w) } as const;
      const changes = await system(w, 'idpSync').idpSync.apply(member, {
        ...request,
        groups: { names: ['synced'], autoCreate: true },
        siteRoles: ['auditor'],
      });
      assert.deepEqual([changes.groupsCreated, changes.groupsAdded, changes.siteRolesChanged], [['synced'], ['synced'], true]);
      const undone = await system(w, 'idpSync').idpSync.apply(member, {
        ...request,
        groups: { names: [], autoCreate: false },
        siteRoles: [],
      });
      assert.deepEqual(undone.groupsRemoved, ['synced']);
    },
    denied: async (w) => {
      const member = await w.owner.users.get(w.memberId);
      await expectRefused(() =>
        w.member.idpSync.apply(member, { loginType: 'oidc', claims: {}, organizationId: defaultOrg(w), siteRoles: ['owner'] }),
      );
    },
  },
  'idpSync.claims': {
    // The member's link was made by the signIn.linkUser case; idpSync.apply stored claims on it.
    allowed: async (w) => assert.ok(await w.member.idpSync.claims(w.memberId, 'oidc')),
    denied: async (w) => expectRefused(() => w.member.idpSync.claims(w.ownerId, 'oidc')),
  },
  'idpSync.previewInputs': {
    allowed: async (w) => assert.ok((await w.owner.idpSync.previewInputs(w.memberId, defaultOrg(w))).groups.length > 0),
    denied: async (w) => expectRefused(() => w.member.idpSync.previewInputs(w.memberId, defaultOrg(w))),
  },
  'users.markInactiveDormant': {
    allowed: async (w) => assert.equal(await system(w, 'userDormancy').users.markInactiveDormant(new Date(0)), 0),
    denied: async (w) => expectRefused(() => w.member.users.markInactiveDormant(new Date(0))),
  },
  'signIn.resetPasswordWithPasscode': {
    // Allowed, and refused by the data: the user holds no passcode.
    allowed: async (w) => {
      const user = await w.owner.users.insert(userRow(w, 'no-passcode'), []);
      assert.equal(await system(w, 'passwordReset').signIn.resetPasswordWithPasscode(user, 'new-hash'), false);
    },
    denied: async (w) => expectRefused(async () => w.member.signIn.resetPasswordWithPasscode(await w.owner.users.get('me'), 'new-hash')),
  },
  'signIn.storePasscode': {
    allowed: async (w) => {
      const user = await w.owner.users.insert(userRow(w, 'asks-reset'), []);
      await system(w, 'passwordReset').signIn.storePasscode(user, 'passcode-hash', '2026-01-05T10:20:00.000Z');
      assert.equal((await w.owner.users.get(user.id)).hashed_one_time_passcode, 'passcode-hash');
    },
    denied: async (w) =>
      expectRefused(async () => w.member.signIn.storePasscode(await w.owner.users.get('me'), 'passcode-hash', '2026-01-05T10:20:00.000Z')),
  },
  'signIn.recordFailedSignIn': {
    allowed: async (w) => system(w, 'passwordSignIn').signIn.recordFailedSignIn(undefined, 401),
    denied: async (w) => expectRefused(() => w.member.signIn.recordFailedSignIn(undefined, 401)),
  },
  'signIn.recordRegistration': {
    allowed: async (w) => system(w, 'firstUser').signIn.recordRegistration(userRow(w, 'registered')),
    denied: async (w) => expectRefused(() => w.member.signIn.recordRegistration(userRow(w, 'not-registered'))),
  },
  'signIn.rehashPassword': {
    allowed: async (w) => {
      const user = await w.owner.users.insert({ ...userRow(w, 'old-hash'), hashed_password: 'old-hash' }, []);
      assert.equal(await system(w, 'passwordSignIn').signIn.rehashPassword(user, 'new-hash'), true);
      // Only the hash that was checked is replaced: a second try with the stale row changes nothing.
      assert.equal(await system(w, 'passwordSignIn').signIn.rehashPassword(user, 'newer-hash'), false);
    },
    denied: async (w) => expectRefused(async () => w.member.signIn.rehashPassword(await w.owner.users.get('me'), 'new-hash')),
  },
  'signIn.claimAttempt': {
    allowed: async (w) => {
      const signIn = system(w, 'passwordSignIn');
      assert.deepEqual(await signIn.signIn.claimAttempt('accounting-claim', pacing), { allowed: true });
      assert.deepEqual(await signIn.signIn.claimAttempt('accounting-claim', pacing), { allowed: true });
      // Two counted: the third waits a minute.
      const refused = await signIn.signIn.claimAttempt('accounting-claim', pacing);
      assert.equal(refused.allowed, false);
      assert.deepEqual(await system(w, 'passwordReset').signIn.claimAttempt('accounting-passcode', pacing), { allowed: true });
    },
    denied: async (w) => expectRefused(() => w.member.signIn.claimAttempt('accounting-claim-denied', pacing)),
  },
  'signIn.usedKeyFrom': {
    allowed: async (w) => {
      await w.member.tokens.insert(key(w, w.memberId, 'from-an-address'));
      const signIn = system(w, 'passwordSignIn');
      assert.equal(await signIn.signIn.usedKeyFrom(w.memberId, '192.0.2.77'), false);
    },
    denied: async (w) => expectRefused(() => w.member.signIn.usedKeyFrom(w.ownerId, '127.0.0.1')),
  },
  'signIn.forgetFailures': {
    allowed: async (w) => {
      const signIn = system(w, 'passwordSignIn');
      await signIn.signIn.claimAttempt('accounting-forget', pacing);
      await signIn.signIn.claimAttempt('accounting-forget', pacing);
      await signIn.signIn.forgetFailures('accounting-forget');
      assert.deepEqual(await signIn.signIn.claimAttempt('accounting-forget', pacing), { allowed: true });
    },
    denied: async (w) => expectRefused(() => w.member.signIn.forgetFailures('accounting-forget')),
  },
  'organizations.ensureDefault': {
    allowed: async (w) =>
      assert.equal((await system(w, 'bootstrap').organizations.ensureDefault(orgRow(w, 'second-default'))).id, defaultOrg(w)),
    denied: async (w) => expectRefused(() => w.member.organizations.ensureDefault(orgRow(w, 'member-default'))),
  },
  'deployment.ensureSiteValue': {
    allowed: async (w) =>
      assert.equal(await system(w, 'bootstrap').deployment.ensureSiteValue('deployment_id', 'other'), w.test.daemon.identity.deploymentId),
    denied: async (w) => expectRefused(() => w.member.deployment.ensureSiteValue('deployment_id', 'mine')),
  },
  'sessions.get': {
    allowed: async (w) => {
      const row = await w.member.tokens.insert(key(w, w.memberId, 'session-of-member'));
      assert.equal((await system(w, 'authenticator').sessions.get(row.id, w.test.clock.now(), subjectOptions))?.user.id, w.memberId);
    },
    denied: async (w) => {
      const row = await w.owner.tokens.insert(key(w, w.ownerId, 'session-of-owner'));
      await expectRefused(() => w.member.sessions.get(row.id, w.test.clock.now(), subjectOptions));
    },
  },
  'sessions.getCached': {
    allowed: async (w) => {
      const row = await w.member.tokens.insert(key(w, w.memberId, 'cached-of-member'));
      const authenticator = system(w, 'authenticator');
      assert.equal(authenticator.sessions.getCached(row.id, w.test.clock.now()), undefined);
      const session = await authenticator.sessions.get(row.id, w.test.clock.now(), subjectOptions);
      assert.ok(session);
      authenticator.sessions.remember(session, w.test.clock.now());
      assert.equal(authenticator.sessions.getCached(row.id, w.test.clock.now())?.user.id, w.memberId);
    },
    denied: async (w) => {
      const row = await w.owner.tokens.insert(key(w, w.ownerId, 'cached-of-owner'));
      const authenticator = system(w, 'authenticator');
      const session = await authenticator.sessions.get(row.id, w.test.clock.now(), subjectOptions);
      assert.ok(session);
      authenticator.sessions.remember(session, w.test.clock.now());
      await expectRefused(async () => w.member.sessions.getCached(row.id, w.test.clock.now()));
    },
  },
  'sessions.remember': {
    allowed: async (w) => {
      const row = await w.member.tokens.insert(key(w, w.memberId, 'remembered'));
      const authenticator = system(w, 'authenticator');
      const session = await authenticator.sessions.get(row.id, w.test.clock.now(), subjectOptions);
      assert.ok(session);
      authenticator.sessions.remember(session, w.test.clock.now());
    },
    denied: async (w) => {
      const row = await w.owner.tokens.insert(key(w, w.ownerId, 'not-remembered'));
      const session = await system(w, 'authenticator').sessions.get(row.id, w.test.clock.now(), subjectOptions);
      assert.ok(session);
      await expectRefused(async () => w.member.sessions.remember(session, w.test.clock.now()));
    },
  },
  'sessions.signIn': {
    allowed: async (w) => {
      const user = await w.owner.users.get(w.memberId);
      await system(w, 'passwordSignIn').sessions.signIn(key(w, w.memberId, 'signed-in'), user);
    },
    denied: async (w) => {
      const user = await w.owner.users.get(w.ownerId);
      await expectRefused(() => w.member.sessions.signIn(key(w, w.ownerId, 'not-signed-in'), user));
    },
  },
  'sessions.signOut': {
    allowed: async (w) => {
      const row = await w.member.tokens.insert(key(w, w.memberId, 'session-out'));
      await w.member.sessions.signOut(await w.owner.users.get(w.memberId), row.id);
    },
    denied: async (w) => {
      const row = await w.owner.tokens.insert(key(w, w.ownerId, 'session-kept'));
      await expectRefused(async () => w.member.sessions.signOut(await w.owner.users.get(w.ownerId), row.id));
    },
  },
  'sessions.recordUse': {
    allowed: async (w) => {
      const row = await w.member.tokens.insert(key(w, w.memberId, 'used'));
      await system(w, 'authenticator').sessions.recordUse(row, { last_used: w.test.clock.now().toISOString() });
    },
    denied: async (w) => {
      const row = await w.owner.tokens.insert(key(w, w.ownerId, 'unused'));
      await expectRefused(() => w.member.sessions.recordUse(row, { last_used: w.test.clock.now().toISOString() }));
    },
  },
  'deployment.listDismissedHealthChecks': {
    allowed: async (w) => assert.ok(Array.isArray(await w.owner.deployment.listDismissedHealthChecks())),
    denied: async (w) => expectRefused(() => w.member.deployment.listDismissedHealthChecks()),
  },
  'deployment.setDismissedHealthChecks': {
    allowed: async (w) => w.owner.deployment.setDismissedHealthChecks([]),
    denied: async (w) => expectRefused(() => w.member.deployment.setDismissedHealthChecks(['DERP'])),
  },
  'deployment.pingDatabase': {
    allowed: async (w) => system(w, 'healthCheck').deployment.pingDatabase(),
    denied: async (w) => expectRefused(() => system(w, 'metricsCollector').deployment.pingDatabase()),
  },
  'deployment.listProvisionerDaemonsSeenSince': {
    allowed: async (w) =>
      assert.ok(Array.isArray(await system(w, 'healthCheck').deployment.listProvisionerDaemonsSeenSince(w.test.clock.now()))),
    denied: async (w) => expectRefused(() => w.member.deployment.listProvisionerDaemonsSeenSince(w.test.clock.now())),
  },
  'deployment.countWorkspacesByLatestBuild': {
    allowed: async (w) => assert.ok(Array.isArray(await system(w, 'metricsCollector').deployment.countWorkspacesByLatestBuild())),
    denied: async (w) => expectRefused(() => system(w, 'healthCheck').deployment.countWorkspacesByLatestBuild()),
  },
  'deployment.countActiveProvisionerJobs': {
    allowed: async (w) =>
      assert.equal(typeof (await system(w, 'metricsCollector').deployment.countActiveProvisionerJobs()).queued, 'number'),
    denied: async (w) => expectRefused(() => w.member.deployment.countActiveProvisionerJobs()),
  },
  'deployment.statsInputs': {
    allowed: async (w) => assert.ok(Array.isArray((await w.owner.deployment.statsInputs(w.test.clock.now())).latestBuilds)),
    denied: async (w) => expectRefused(() => w.member.deployment.statsInputs(w.test.clock.now())),
  },
  'files.save': {
    allowed: async (w) => assert.equal((await w.member.files.save(fileRow(w, w.memberId, 'a'))).created, true),
    denied: async (w) => expectRefused(() => w.member.files.save(fileRow(w, w.ownerId, 'b'))),
  },
  'files.get': {
    allowed: async (w) => {
      const { file } = await w.member.files.save(fileRow(w, w.memberId, 'c'));
      assert.equal((await w.member.files.get(file.id)).data.toString(), 'c');
      assert.equal((await w.owner.files.get(file.id)).id, file.id);
    },
    denied: async (w) => {
      const { file } = await w.owner.files.save(fileRow(w, w.ownerId, 'd'));
      await expectRefused(() => w.member.files.get(file.id));
    },
  },
  'templates.get': {
    allowed: async (w) =>
      assert.equal((await w.member.templates.get((await templateFixture(w)).template.id)).name.startsWith('fixture'), true),
    denied: async (w) => expectRefused(async () => w.outsider.templates.get((await templateFixture(w)).template.id)),
  },
  'templates.getByName': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      assert.equal((await w.member.templates.getByName(template.organization_id, template.name)).id, template.id);
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      await expectRefused(() => w.outsider.templates.getByName(template.organization_id, template.name));
    },
  },
  'templates.list': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      assert.ok((await w.member.templates.list()).some((t) => t.id === template.id));
    },
    denied: async (w) => {
      await templateFixture(w);
      assert.deepEqual(await w.outsider.templates.list(), []);
    },
  },
  'templates.insert': {
    allowed: async (w) => assert.ok((await templateFixture(w)).template.id),
    denied: async (w) => {
      const { version } = await versionFixture(w, w.owner);
      await expectRefused(() => w.member.templates.insert(fixtureTemplate(w, version.id)));
    },
  },
  'templates.update': {
    allowed: async (w) =>
      assert.equal((await w.owner.templates.update((await templateFixture(w)).template, { description: 'x' })).description, 'x'),
    denied: async (w) => expectRefused(async () => w.member.templates.update((await templateFixture(w)).template, { description: 'y' })),
  },
  'templates.authorize': {
    allowed: async (w) => w.owner.templates.authorize('update', { template: (await templateFixture(w)).template }),
    denied: async (w) =>
      expectRefused(async () => w.member.templates.authorize('update', { template: (await templateFixture(w)).template })),
  },
  'templateAcl.entries': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const changed = await w.owner.templateAcl.change(template, { users: { [w.memberId]: ['*'] }, groups: {} });
      assert.deepEqual(
        (await w.member.templateAcl.entries(changed)).users.map((user) => user.id),
        [w.memberId],
      );
    },
    // A user of the template may read it, not whom its ACL names.
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const changed = await w.owner.templateAcl.change(template, { users: { [w.memberId]: ['read', 'use'] }, groups: {} });
      await expectRefused(async () => w.member.templateAcl.entries(changed));
    },
  },
  'templateAcl.available': {
    allowed: async (w) =>
      assert.ok(
        (await w.owner.templateAcl.available((await templateFixture(w)).template, ANY_USER)).users.some((user) => user.id === w.memberId),
      ),
    denied: async (w) => expectRefused(async () => w.member.templateAcl.available((await templateFixture(w)).template, ANY_USER)),
  },
  'templateAcl.missing': {
    allowed: async (w) => {
      const unknown = newId();
      const missing = await w.owner.templateAcl.missing((await templateFixture(w)).template, {
        users: [w.memberId, unknown],
        groups: [unknown],
      });
      assert.deepEqual(missing, { users: [unknown], groups: [unknown] });
    },
    denied: async (w) =>
      expectRefused(async () => w.member.templateAcl.missing((await templateFixture(w)).template, { users: [w.memberId], groups: [] })),
  },
  'templateAcl.change': {
    allowed: async (w) => {
      const changed = await w.owner.templateAcl.change((await templateFixture(w)).template, { users: { [w.memberId]: ['*'] }, groups: {} });
      assert.deepEqual(JSON.parse(changed.user_acl), { [w.memberId]: ['*'] });
    },
    denied: async (w) =>
      expectRefused(async () =>
        w.member.templateAcl.change((await templateFixture(w)).template, { users: { [w.memberId]: ['*'] }, groups: {} }),
      ),
  },
  'templateVersions.insert': {
    allowed: async (w) => assert.ok((await versionFixture(w, w.owner)).version.id),
    denied: async (w) => expectRefused(() => versionFixture(w, w.member)),
  },
  'templateVersions.get': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      assert.equal((await w.member.templateVersions.get(template.active_version_id)).version.template_id, template.id);
    },
    denied: async (w) => expectRefused(async () => w.outsider.templateVersions.get((await templateFixture(w)).template.active_version_id)),
  },
  'templates.getWithVersion': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const found = await w.member.templates.getWithVersion(template.id);
      assert.deepEqual(found.template, template);
      assert.equal(found.version.id, template.active_version_id);
      assert.equal(found.job.id, found.version.job_id);
      assert.equal(found.organization?.id, template.organization_id, 'a member reads the organization with the template');
      await assert.rejects(w.member.templates.getWithVersion(newId()), NotFoundError);
      // A named version: the template's own, then another template's, which is not found with it.
      const named = await w.member.templates.getWithVersion(template.id, template.active_version_id);
      assert.deepEqual(named.version, found.version);
      const other = await templateFixture(w);
      await assert.rejects(w.member.templates.getWithVersion(template.id, other.template.active_version_id), {
        name: 'NotFoundError',
        what: 'template version',
      });
    },
    denied: async (w) => expectRefused(async () => w.outsider.templates.getWithVersion((await templateFixture(w)).template.id)),
  },
  'templateVersions.list': {
    allowed: async (w) => assert.equal((await w.member.templateVersions.list((await templateFixture(w)).template)).length, 1),
    denied: async (w) => expectRefused(async () => w.outsider.templateVersions.list((await templateFixture(w)).template)),
  },
  'templateVersions.update': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.templateVersions.get(template.active_version_id);
      await w.owner.templateVersions.update(version, { message: 'changed' });
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.templateVersions.get(template.active_version_id);
      await expectRefused(() => w.member.templateVersions.update(version, { message: 'changed' }));
    },
  },
  'templateVersions.cancelJob': {
    allowed: async (w) => {
      const { version, job } = await versionFixture(w, w.owner);
      assert.ok((await w.owner.templateVersions.cancelJob(version, job, cancellation(w))).canceled_at);
    },
    denied: async (w) => {
      const { version, job } = await versionFixture(w, w.owner);
      await expectRefused(() => w.member.templateVersions.cancelJob(version, job, cancellation(w)));
    },
  },
  'templateVersions.jobResources': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version, job } = await w.owner.templateVersions.get(template.active_version_id);
      assert.deepEqual(await w.member.templateVersions.jobResources(version, job.id), []);
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version, job } = await w.owner.templateVersions.get(template.active_version_id);
      await expectRefused(() => w.outsider.templateVersions.jobResources(version, job.id));
    },
  },
  'templateVersions.jobLogs': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version, job } = await w.owner.templateVersions.get(template.active_version_id);
      assert.deepEqual(await w.member.templateVersions.jobLogs(version, job.id, {}), []);
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version, job } = await w.owner.templateVersions.get(template.active_version_id);
      await expectRefused(() => w.outsider.templateVersions.jobLogs(version, job.id, {}));
    },
  },
  'provisionerJobs.get': {
    allowed: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      assert.equal((await w.owner.provisionerJobs.get(job.organization_id, job.id)).id, job.id);
    },
    denied: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      await expectRefused(() => w.member.provisionerJobs.get(job.organization_id, job.id));
    },
  },
  'provisionerJobs.list': {
    allowed: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      // By id: the world's clock stands still, so jobs made by earlier cases tie on their time and
      // the newest need not be among the first page.
      const listed = await w.owner.provisionerJobs.list(job.organization_id, { ids: [job.id], limit: 50 });
      assert.deepEqual(
        listed.map((j) => j.id),
        [job.id],
      );
    },
    denied: async (w) => expectRefused(() => w.member.provisionerJobs.list(defaultOrg(w), { limit: 50 })),
  },
  'provisionerKeys.insert': {
    allowed: async (w) => w.owner.provisionerKeys.insert(keyRow(w, 'allowed-key')),
    denied: async (w) => expectRefused(() => w.member.provisionerKeys.insert(keyRow(w, 'denied-key'))),
  },
  'provisionerKeys.list': {
    allowed: async (w) => assert.ok(Array.isArray(await w.member.provisionerKeys.list(defaultOrg(w)))),
    denied: async (w) => expectRefused(() => w.outsider.provisionerKeys.list(defaultOrg(w))),
  },
  'provisionerKeys.delete': {
    allowed: async (w) => {
      await w.owner.provisionerKeys.insert(keyRow(w, 'doomed-key'));
      await w.owner.provisionerKeys.delete(defaultOrg(w), 'doomed-key');
    },
    denied: async (w) => {
      await w.owner.provisionerKeys.insert(keyRow(w, 'kept-key'));
      await expectRefused(() => w.member.provisionerKeys.delete(defaultOrg(w), 'kept-key'));
    },
  },
  'provisionerDaemons.list': {
    allowed: async (w) => assert.ok(Array.isArray(await w.member.provisionerDaemons.list(defaultOrg(w)))),
    denied: async (w) => expectRefused(() => w.outsider.provisionerDaemons.list(defaultOrg(w))),
  },
  'templateVersions.insertDryRunJob': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version, job } = await w.owner.templateVersions.get(template.active_version_id);
      await w.member.templateVersions.insertDryRunJob(version, {
        ...job,
        id: newId(),
        type: 'template_version_dry_run',
        initiator_id: w.memberId,
        input: JSON.stringify({ template_version_id: version.id }),
      });
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version, job } = await w.owner.templateVersions.get(template.active_version_id);
      await expectRefused(() =>
        w.outsider.templateVersions.insertDryRunJob(version, { ...job, id: newId(), type: 'template_version_dry_run' }),
      );
    },
  },
  'templateVersions.getDryRunJob': {
    allowed: async (w) => {
      const { version, dryRun } = await dryRunFixture(w);
      assert.equal((await w.owner.templateVersions.getDryRunJob(version, dryRun.id)).id, dryRun.id);
    },
    denied: async (w) => {
      const { version, dryRun } = await dryRunFixture(w);
      await expectRefused(() => w.member.templateVersions.getDryRunJob(version, dryRun.id));
    },
  },
  'templateVersions.cancelDryRunJob': {
    allowed: async (w) =>
      assert.ok((await w.owner.templateVersions.cancelDryRunJob((await dryRunFixture(w)).dryRun, cancellation(w))).canceled_at),
    denied: async (w) =>
      expectRefused(async () => w.member.templateVersions.cancelDryRunJob((await dryRunFixture(w)).dryRun, cancellation(w))),
  },
  'templates.relations': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const related = await w.member.templates.relations([template]);
      assert.equal(related.creatorNames.get(template.created_by) !== undefined, true);
    },
    denied: async (w) => expectRefused(async () => w.outsider.templates.relations([(await templateFixture(w)).template])),
  },
  'templates.hasWorkspaces': {
    allowed: async (w) => assert.equal(await w.member.templates.hasWorkspaces((await templateFixture(w)).template), false),
    denied: async (w) => expectRefused(async () => w.outsider.templates.hasWorkspaces((await templateFixture(w)).template)),
  },
  'templates.narrowPortShares': {
    allowed: async (w) => w.owner.templates.narrowPortShares((await templateFixture(w)).template, SHARE_LEVELS),
    denied: async (w) => expectRefused(async () => w.member.templates.narrowPortShares((await templateFixture(w)).template, SHARE_LEVELS)),
  },
  'templateVersions.getByName': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.templateVersions.get(template.active_version_id);
      assert.equal((await w.member.templateVersions.getByName(template, version.name.toUpperCase())).version.id, version.id);
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.templateVersions.get(template.active_version_id);
      await expectRefused(() => w.outsider.templateVersions.getByName(template, version.name));
    },
  },
  'templateVersions.getPrevious': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.templateVersions.get(template.active_version_id);
      assert.equal(await w.member.templateVersions.getPrevious(template, version), undefined);
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.templateVersions.get(template.active_version_id);
      await expectRefused(() => w.outsider.templateVersions.getPrevious(template, version));
    },
  },
  'templateVersions.page': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const page = await w.member.templateVersions.page(template, { includeArchived: false, offset: 0, limit: 25 });
      assert.deepEqual(page === 'missing-after' ? page : page.map((v) => v.version.id), [template.active_version_id]);
    },
    denied: async (w) =>
      expectRefused(async () =>
        w.outsider.templateVersions.page((await templateFixture(w)).template, { includeArchived: false, offset: 0, limit: 25 }),
      ),
  },
  'templateVersions.creators': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.templateVersions.get(template.active_version_id);
      assert.equal((await w.member.templateVersions.creators([version])).get(w.ownerId)?.id, w.ownerId);
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { version } = await w.owner.templateVersions.get(template.active_version_id);
      await expectRefused(() => w.outsider.templateVersions.creators([version]));
    },
  },
  'provisionerJobs.relations': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { job } = await w.owner.templateVersions.get(template.active_version_id);
      assert.ok((await w.member.provisionerJobs.relations([job])).queued.has(job.id));
    },
    denied: async (w) => {
      const { template } = await templateFixture(w);
      const { job } = await w.owner.templateVersions.get(template.active_version_id);
      await expectRefused(() => w.outsider.provisionerJobs.relations([job]));
    },
  },
  'provisionerJobs.followLogs': {
    allowed: async (w) => {
      const { template } = await templateFixture(w);
      const { job } = await w.owner.templateVersions.get(template.active_version_id);
      assert.deepEqual(await (await w.member.provisionerJobs.followLogs(job.id)).logsAfter(0), []);
    },
    denied: async (w) => {
      const { job } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.provisionerJobs.followLogs(job.id));
    },
  },
  'provisionerKeys.getByHash': {
    allowed: async (w) => {
      await w.owner.provisionerKeys.insert(keyRow(w, 'found-key'));
      assert.equal((await w.owner.provisionerKeys.getByHash('hash-found-key')).name, 'found-key');
    },
    denied: async (w) => {
      await w.owner.provisionerKeys.insert(keyRow(w, 'hidden-key'));
      await expectRefused(() => w.outsider.provisionerKeys.getByHash('hash-hidden-key'));
    },
  },
  'provisionerDaemons.register': {
    allowed: async (w) => provisioner(w).provisionerDaemons.register(daemonRow(w)),
    denied: async (w) => expectRefused(() => w.member.provisionerDaemons.register(daemonRow(w))),
  },
  'provisionerDaemons.touch': {
    allowed: async (w) => provisioner(w).provisionerDaemons.touch(defaultOrg(w), newId()),
    denied: async (w) => expectRefused(() => w.member.provisionerDaemons.touch(defaultOrg(w), newId())),
  },
  'provisionerJobs.claimNext': {
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
        w.member.provisionerJobs.claimNext(defaultOrg(w), { workerId: newId(), provisioners: ['echo'], tags: UNTAGGED }),
      );
    },
  },
  'provisionerJobs.getWithContext': {
    allowed: async (w) => {
      const { job, workspace } = await workspaceFixture(w, w.member);
      const run = await provisioner(w).provisionerJobs.getWithContext(job.organization_id, job.id, 'run');
      assert.equal(run.job.id, job.id);
      assert.equal(run.context.build?.workspace?.owner_id, w.memberId);
      assert.equal(run.context.build?.row?.job_id, job.id);
      assert.ok(run.context.file && run.context.file.data.length > 0, 'running reads the archive');
      assert.equal(run.context.build?.template?.id, workspace.template_id, "the template, whose schedule the job's end is recorded with");
      const record = await provisioner(w).provisionerJobs.getWithContext(job.organization_id, job.id, 'record');
      assert.equal(record.context.file, undefined, 'recording leaves the archive out');
      assert.equal(record.context.build?.template?.id, workspace.template_id);
      await assert.rejects(provisioner(w).provisionerJobs.getWithContext(newId(), job.id, 'run'), NotFoundError);
    },
    denied: async (w) =>
      expectRefused(async () => {
        const { job } = await workspaceFixture(w, w.member);
        await w.member.provisionerJobs.getWithContext(job.organization_id, job.id, 'run');
      }),
  },
  'provisionerJobs.workspaceIdOf': {
    allowed: async (w) => {
      const { workspace, job } = await workspaceFixture(w, w.member);
      assert.equal(await provisioner(w).provisionerJobs.workspaceIdOf(job), workspace.id);
    },
    denied: async (w) => expectRefused(async () => w.member.provisionerJobs.workspaceIdOf((await workspaceFixture(w, w.member)).job)),
  },
  'provisionerJobs.appendLogs': {
    allowed: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      await provisioner(w).provisionerJobs.appendLogs(job, [logLine(w)]);
      assert.equal((await (await w.owner.provisionerJobs.followLogs(job.id)).logsAfter(0)).length, 1);
    },
    denied: async (w) =>
      expectRefused(async () => w.member.provisionerJobs.appendLogs((await versionFixture(w, w.owner)).job, [logLine(w)])),
  },
  'provisionerJobs.complete': {
    allowed: async (w) => {
      await drainQueue(w);
      const { job } = await versionFixture(w, w.owner);
      const workerId = newId();
      assert.equal((await claimNext(w, workerId))?.id, job.id);
      const stored = await provisioner(w).provisionerJobs.complete(job, () => completion(w, { readme: 'done' }), undefined, { workerId });
      await stored.announced;
      assert.equal(stored.stored, true);
      assert.equal((await w.owner.provisionerJobs.get(job.organization_id, job.id)).completed_at !== null, true);
    },
    denied: async (w) =>
      expectRefused(async () =>
        w.member.provisionerJobs.complete((await versionFixture(w, w.owner)).job, () => completion(w, {}), undefined, {
          workerId: newId(),
        }),
      ),
  },
  'provisionerJobs.finish': {
    allowed: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      assert.equal(await provisioner(w).provisionerJobs.finish(job, { error: 'broken', error_code: '' }), true);
    },
    denied: async (w) =>
      expectRefused(async () => w.member.provisionerJobs.finish((await versionFixture(w, w.owner)).job, { error: 'x', error_code: '' })),
  },
  'provisionerJobs.listStalled': {
    allowed: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      const later = new Date(w.test.clock.now().getTime() + 1000).toISOString();
      const cutoffs = { hungBefore: later, orphanedBefore: later, staleBefore: later };
      assert.ok((await reaper(w).provisionerJobs.listStalled(cutoffs, cancellation(w).live, 1000)).some((j) => j.id === job.id));
    },
    denied: async (w) =>
      expectRefused(() =>
        w.member.provisionerJobs.listStalled({ hungBefore: '', orphanedBefore: '', staleBefore: '' }, cancellation(w).live, 10),
      ),
  },
  'provisionerJobs.listOpenOfWorkers': {
    allowed: async (w) => {
      await drainQueue(w);
      const { job } = await versionFixture(w, w.owner);
      const workerId = newId();
      assert.equal((await claimNext(w, workerId))?.id, job.id);
      const open = await w.test.daemon.store.as(SYSTEM_SUBJECTS.jobRecovery).provisionerJobs.listOpenOfWorkers(workerId.slice(0, 24), 10);
      assert.deepEqual(
        open.map((j) => j.id),
        [job.id],
      );
    },
    denied: async (w) => expectRefused(() => w.member.provisionerJobs.listOpenOfWorkers('0', 10)),
  },
  'provisionerJobs.reap': {
    allowed: async (w) => {
      const { job } = await versionFixture(w, w.owner);
      assert.equal(await reaper(w).provisionerJobs.reap(job, 'hung', ['reaped']), true);
    },
    denied: async (w) => expectRefused(async () => w.member.provisionerJobs.reap((await versionFixture(w, w.owner)).job, 'hung', [])),
  },
  'workspaces.insert': {
    allowed: async (w) => assert.ok((await workspaceFixture(w, w.member)).workspace.id),
    denied: async (w) => expectRefused(() => workspaceFixture(w, w.outsider)),
  },
  'workspaces.get': {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      assert.equal((await w.owner.workspaces.get(workspace.id)).id, workspace.id);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaces.get(workspace.id));
    },
  },
  'workspaces.getWithLatestBuilds': {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      const { found: all, refused } = await w.owner.workspaces.getWithLatestBuilds([workspace.id, 'not-an-id', newId()]);
      assert.equal(refused.size, 0);
      const found = all.get(workspace.id);
      assert.equal(found?.workspace.id, workspace.id);
      assert.equal(found.latestBuild?.id, build.id);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      const { found, refused } = await w.member.workspaces.getWithLatestBuilds([workspace.id]);
      assert.equal(found.size, 0);
      assert.deepEqual([...refused], [workspace.id]);
    },
  },
  'workspaces.getByOwnerAndName': {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.workspaces.getByOwnerAndName(w.memberId, workspace.name, false)).id, workspace.id);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaces.getByOwnerAndName(w.ownerId, workspace.name, false));
    },
  },
  'workspaces.getByOwnerRefAndName': {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.workspaces.getByOwnerRefAndName('me', workspace.name, false)).id, workspace.id);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaces.getByOwnerRefAndName(w.ownerId, workspace.name, false));
    },
  },
  'workspaces.list': {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      assert.ok((await w.owner.workspaces.list(allWorkspaces)).rows.some((row) => row.id === workspace.id));
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      assert.ok(!(await w.member.workspaces.list(allWorkspaces)).rows.some((row) => row.id === workspace.id));
    },
  },
  'workspaceBuilds.grant': {
    allowed: async (w) =>
      assert.equal(w.member.workspaceBuilds.grant((await workspaceFixture(w, w.member)).workspace, 'stop').transition, 'stop'),
    denied: async (w) => expectRefused(async () => w.member.workspaceBuilds.grant((await workspaceFixture(w, w.owner)).workspace, 'stop')),
  },
  'workspaceBuilds.insert': {
    allowed: async (w) => {
      const { workspace, build, job } = await workspaceFixture(w, w.member);
      const next = await nextJob(w, job);
      const grant = w.member.workspaceBuilds.grant(workspace, 'stop');
      await w.member.workspaceBuilds.insert(grant, {
        build: { ...build, id: newId(), build_number: 2, transition: 'stop', job_id: next.id },
        job: next,
        orphan: false,
      });
    },
    denied: async (w) => {
      const { workspace, build, job } = await workspaceFixture(w, w.owner);
      const next = await nextJob(w, job);
      // A grant the member's store did not make (it is the owner's) decides nothing for the member.
      const grant = w.owner.workspaceBuilds.grant(workspace, 'start');
      await expectRefused(() =>
        w.member.workspaceBuilds.insert(grant, {
          build: { ...build, id: newId(), build_number: 2, job_id: next.id },
          job: next,
          orphan: false,
        }),
      );
    },
  },
  'workspaces.grantCreation': {
    allowed: async (w) =>
      assert.equal(w.member.workspaces.grantCreation(w.memberId, (await templateFixture(w)).template).ownerId, w.memberId),
    denied: async (w) => expectRefused(async () => w.member.workspaces.grantCreation(w.ownerId, (await templateFixture(w)).template)),
  },
  'workspaces.authorize': {
    allowed: async (w) => w.member.workspaces.authorize('update', (await workspaceFixture(w, w.member)).workspace),
    denied: async (w) => expectRefused(async () => w.member.workspaces.authorize('read', (await workspaceFixture(w, w.owner)).workspace)),
  },
  'workspaces.update': {
    allowed: async (w) =>
      assert.equal((await w.member.workspaces.update((await workspaceFixture(w, w.member)).workspace, { favorite: 1 })).favorite, 1),
    denied: async (w) =>
      expectRefused(async () => w.member.workspaces.update((await workspaceFixture(w, w.owner)).workspace, { favorite: 1 })),
  },
  'workspaceBuilds.list': {
    allowed: async (w) =>
      assert.equal((await w.member.workspaceBuilds.list((await workspaceFixture(w, w.member)).workspace, everyBuild))?.length, 1),
    denied: async (w) =>
      expectRefused(async () => w.member.workspaceBuilds.list((await workspaceFixture(w, w.owner)).workspace, everyBuild)),
  },
  'externalAuth.save': {
    allowed: async (w) => w.member.externalAuth.save('acct-git', w.memberId, linkTokens('member-token')),
    denied: async (w) => expectRefused(() => w.member.externalAuth.save('acct-git', w.ownerId, linkTokens('planted'))),
  },
  'externalAuth.get': {
    allowed: async (w) => {
      await w.member.externalAuth.save('acct-git', w.memberId, linkTokens('member-token'));
      assert.equal((await w.member.externalAuth.get('acct-git', w.memberId))?.accessToken, 'member-token');
    },
    denied: async (w) => expectRefused(() => w.member.externalAuth.get('acct-git', w.ownerId)),
  },
  'externalAuth.list': {
    allowed: async (w) => {
      await w.member.externalAuth.save('acct-git', w.memberId, linkTokens('member-token'));
      assert.deepEqual(
        (await w.member.externalAuth.list(w.memberId)).map((link) => link.providerId),
        ['acct-git'],
      );
    },
    denied: async (w) => expectRefused(() => w.member.externalAuth.list(w.ownerId)),
  },
  'externalAuth.statuses': {
    // Whoever may read a user (to create a workspace for them) learns whether their links work, not their tokens.
    allowed: async (w) => {
      await w.member.externalAuth.save('acct-git', w.memberId, linkTokens('member-token'));
      assert.equal((await w.owner.externalAuth.statuses(w.memberId))[0]?.validateError, '');
    },
    denied: async (w) => expectRefused(() => w.outsider.externalAuth.statuses(w.memberId)),
  },
  'externalAuth.freshen': {
    allowed: async (w) => {
      await w.member.externalAuth.save('acct-git', w.memberId, linkTokens('member-token'));
      const fresh = await w.member.externalAuth.freshen('acct-git', w.memberId, async () => ({
        kind: 'tokens',
        tokens: linkTokens('refreshed'),
      }));
      assert.equal(fresh?.accessToken, 'refreshed');
    },
    denied: async (w) => expectRefused(() => w.member.externalAuth.freshen('acct-git', w.ownerId, async () => ({ kind: 'keep' }))),
  },
  'externalAuth.delete': {
    allowed: async (w) => {
      await w.member.externalAuth.save('acct-git-2', w.memberId, linkTokens('gone'));
      assert.equal((await w.member.externalAuth.delete('acct-git-2', w.memberId))?.accessToken, 'gone');
    },
    denied: async (w) => expectRefused(() => w.member.externalAuth.delete('acct-git', w.ownerId)),
  },
  'externalAuth.startFlow': {
    allowed: async (w) => w.member.externalAuth.startFlow(flowRow(w, w.memberId, 'started')),
    denied: async (w) => expectRefused(() => w.member.externalAuth.startFlow(flowRow(w, w.ownerId, 'for-owner'))),
  },
  'externalAuth.takeFlow': {
    allowed: async (w) => {
      await w.member.externalAuth.startFlow(flowRow(w, w.memberId, 'to-take'));
      assert.equal((await w.member.externalAuth.takeFlow('to-take', w.memberId))?.provider_id, 'acct-git');
    },
    denied: async (w) => expectRefused(() => w.member.externalAuth.takeFlow('to-take', w.ownerId)),
  },
  'auditLogs.list': {
    allowed: async (w) => assert.ok(Array.isArray((await w.owner.auditLogs.list({}, { limit: 5, offset: 0 })).rows)),
    denied: async (w) => expectRefused(() => w.member.auditLogs.list({}, { limit: 5, offset: 0 })),
  },
  'auditLogs.count': {
    allowed: async (w) => assert.ok((await w.owner.auditLogs.count({})) >= 0),
    denied: async (w) => expectRefused(() => w.member.auditLogs.count({})),
  },
  'auditLogs.record': {
    allowed: async (w) => system(w, 'auditLogger').auditLogs.record(auditRow(w.memberId)),
    // A user's own store cannot write entries, an owner's neither.
    denied: async (w) => expectRefused(() => w.owner.auditLogs.record(auditRow(w.ownerId))),
  },
  'auditLogs.correctStatus': {
    allowed: async (w) => {
      const row = auditRow(w.memberId);
      await system(w, 'auditLogger').auditLogs.record(row);
      assert.equal(await system(w, 'auditLogger').auditLogs.correctStatus(row.request_id, [row.id], 500), 1);
    },
    denied: async (w) => expectRefused(() => w.member.auditLogs.correctStatus('request', [newId()], 200)),
  },
  'licenses.insert': {
    allowed: async (w) => assert.ok((await w.owner.licenses.insert(licenseRow('owner-license'))).id > 0),
    denied: async (w) => expectRefused(() => w.member.licenses.insert(licenseRow('member-license'))),
  },
  'licenses.list': {
    allowed: async (w) => assert.ok(Array.isArray(await w.owner.licenses.list())),
    // Filtered, not refused: licenses are all or nothing, and a member sees none.
    denied: async (w) => {
      await w.owner.licenses.insert(licenseRow('listed-license'));
      assert.deepEqual(await w.member.licenses.list(), []);
      await expectRefused(async () => {
        if ((await w.member.licenses.list()).length === 0) throw new NotAuthorizedError('read', 'license');
      });
    },
  },
  'licenses.delete': {
    allowed: async (w) => w.owner.licenses.delete((await w.owner.licenses.insert(licenseRow('doomed-license'))).id),
    denied: async (w) =>
      expectRefused(async () => w.member.licenses.delete((await w.owner.licenses.insert(licenseRow('kept-license'))).id)),
  },
  'connectionLogs.open': {
    allowed: async (w) => system(w, 'connectionLogger').connectionLogs.open(connectionLogRow(w, 'opened')),
    denied: async (w) => expectRefused(() => w.member.connectionLogs.open(connectionLogRow(w, 'not-opened'))),
  },
  'connectionLogs.close': {
    allowed: async (w) => {
      const row = connectionLogRow(w, 'closed');
      await system(w, 'connectionLogger').connectionLogs.open(row);
      assert.equal(await system(w, 'connectionLogger').connectionLogs.close(row.id, connectionLogEnd), true);
    },
    denied: async (w) => {
      const row = connectionLogRow(w, 'kept-open');
      await system(w, 'connectionLogger').connectionLogs.open(row);
      await expectRefused(() => w.member.connectionLogs.close(row.id, connectionLogEnd));
    },
  },
  'connectionLogs.closeLeftOpen': {
    allowed: async (w) => {
      const row = { ...connectionLogRow(w, 'left-open'), replica_id: newId() };
      await system(w, 'connectionLogger').connectionLogs.open(row);
      assert.equal(
        await system(w, 'connectionLogger').connectionLogs.closeLeftOpen(row.replica_id, row.connect_time, 'daemon restarted'),
        1,
      );
    },
    denied: async (w) =>
      expectRefused(() => w.member.connectionLogs.closeLeftOpen(newId(), '2026-01-05T10:00:00.000Z', 'daemon restarted')),
  },
  'connectionLogs.list': {
    allowed: async (w) => {
      const row = connectionLogRow(w, 'listed');
      await system(w, 'connectionLogger').connectionLogs.open(row);
      const page = await w.owner.connectionLogs.list({ workspaceId: row.workspace_id }, { limit: 10, offset: 0 });
      assert.deepEqual(
        page.rows.map((listed) => listed.id),
        [row.id],
      );
      assert.equal(page.count, 1);
    },
    // A member reads no connection log, not even of their own workspaces.
    denied: async (w) => expectRefused(() => w.member.connectionLogs.list({}, { limit: 10, offset: 0 })),
  },
  'connectionLogs.count': {
    allowed: async (w) => {
      const row = connectionLogRow(w, 'counted');
      await system(w, 'connectionLogger').connectionLogs.open(row);
      assert.equal(await w.owner.connectionLogs.count({ workspaceId: row.workspace_id }), 1);
    },
    // Filtered, not refused: the member counts none of the rows there are.
    denied: async (w) => {
      const row = connectionLogRow(w, 'uncounted');
      await system(w, 'connectionLogger').connectionLogs.open(row);
      assert.equal(await w.member.connectionLogs.count({ workspaceId: row.workspace_id }), 0);
      await expectRefused(async () => {
        if ((await w.member.connectionLogs.count({ workspaceId: row.workspace_id })) === 0)
          throw new NotAuthorizedError('read', 'audit_log');
      });
    },
  },
  'licenses.entitlementInputs': {
    allowed: async (w) => assert.ok((await system(w, 'entitlements').licenses.entitlementInputs()).activeUsers >= 1),
    denied: async (w) => expectRefused(() => w.member.licenses.entitlementInputs()),
  },
  'insights.recordUsageMinutes': {
    allowed: async (w) => w.member.insights.recordUsageMinutes((await workspaceFixture(w, w.member)).workspace, [usageMinute]),
    denied: async (w) =>
      expectRefused(async () => w.member.insights.recordUsageMinutes((await workspaceFixture(w, w.owner)).workspace, [usageMinute])),
  },
  'insights.dailyActiveUsers': {
    allowed: async (w) => assert.deepEqual(await w.owner.insights.dailyActiveUsers({ from: 0, to: 1 }, 0), []),
    denied: async (w) => expectRefused(() => w.member.insights.dailyActiveUsers({ from: 0, to: 1 }, 0)),
  },
  'insights.templateDailyActiveUsers': {
    allowed: async (w) =>
      assert.deepEqual(await w.member.insights.templateDailyActiveUsers((await templateFixture(w)).template, { from: 0, to: 1 }, 0), []),
    denied: async (w) =>
      expectRefused(async () => w.outsider.insights.templateDailyActiveUsers((await templateFixture(w)).template, { from: 0, to: 1 }, 0)),
  },
  'insights.templates': {
    allowed: async (w) =>
      assert.equal(
        (await w.owner.insights.templates([], { from: 0, to: 1, fromIso: '1970', toIso: '1971', intervalMinutes: 1440 })).total.users,
        0,
      ),
    denied: async (w) =>
      expectRefused(() => w.member.insights.templates([], { from: 0, to: 1, fromIso: '1970', toIso: '1971', intervalMinutes: 1440 })),
  },
  'insights.userActivity': {
    allowed: async (w) => assert.deepEqual(await w.owner.insights.userActivity([], { from: 0, to: 1 }), []),
    denied: async (w) => expectRefused(() => w.member.insights.userActivity([], { from: 0, to: 1 })),
  },
  'insights.userLatency': {
    allowed: async (w) => assert.deepEqual(await w.owner.insights.userLatency([], { from: 0, to: 1 }), []),
    denied: async (w) => expectRefused(() => w.member.insights.userLatency([], { from: 0, to: 1 })),
  },
  'insights.userStatusCounts': {
    allowed: async (w) => assert.ok(Array.isArray(await w.owner.insights.userStatusCounts([w.test.clock.now().toISOString()]))),
    denied: async (w) => expectRefused(() => w.member.insights.userStatusCounts([w.test.clock.now().toISOString()])),
  },
  'workspaces.touch': {
    allowed: async (w) => w.member.workspaces.touch((await workspaceFixture(w, w.member)).workspace),
    denied: async (w) => expectRefused(async () => w.member.workspaces.touch((await workspaceFixture(w, w.owner)).workspace)),
  },
  'workspaceBuilds.getByNumber': {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.workspaceBuilds.getByNumber(workspace, 1)).id, build.id);
    },
    denied: async (w) => expectRefused(async () => w.member.workspaceBuilds.getByNumber((await workspaceFixture(w, w.owner)).workspace, 1)),
  },
  'workspaceBuilds.getLatest': {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.workspaceBuilds.getLatest(workspace))?.build.id, build.id);
    },
    denied: async (w) => expectRefused(async () => w.member.workspaceBuilds.getLatest((await workspaceFixture(w, w.owner)).workspace)),
  },
  'workspaceBuilds.listLatest': {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.workspaceBuilds.listLatest([workspace])).get(workspace.id)?.id, build.id);
    },
    denied: async (w) => expectRefused(async () => w.member.workspaceBuilds.listLatest([(await workspaceFixture(w, w.owner)).workspace])),
  },
  'workspaceBuilds.job': {
    allowed: async (w) => {
      const { workspace, build, job } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.workspaceBuilds.job(workspace, build)).id, job.id);
    },
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaceBuilds.job(workspace, build));
    },
  },
  'workspaceBuilds.logs': {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      assert.deepEqual(await w.member.workspaceBuilds.logs(workspace, build, {}), []);
    },
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaceBuilds.logs(workspace, build, {}));
    },
  },
  'workspaceBuilds.setDeadline': {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      const deadline = w.test.clock.now().toISOString();
      await w.member.workspaceBuilds.setDeadline(workspace, build, deadline);
      assert.equal((await w.member.workspaceBuilds.getLatest(workspace))?.build.deadline, deadline);
    },
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaceBuilds.setDeadline(workspace, build, null));
    },
  },
  'workspaces.template': {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.workspaces.template(workspace)).id, workspace.template_id);
    },
    denied: async (w) => expectRefused(async () => w.member.workspaces.template((await workspaceFixture(w, w.owner)).workspace)),
  },
  'workspaces.templateVersion': {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.workspaces.templateVersion(workspace, build.template_version_id)).id, build.template_version_id);
    },
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaces.templateVersion(workspace, build.template_version_id));
    },
  },
  'workspaceBuilds.latestAgents': {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      const { workspace } = await w.member.workspaceAgents.get(agentId);
      assert.deepEqual(
        (await w.member.workspaceBuilds.latestAgents(workspace)).map((a) => a.id),
        [agentId],
      );
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      const { workspace } = await w.owner.workspaceAgents.get(agentId);
      await expectRefused(() => w.member.workspaceBuilds.latestAgents(workspace));
    },
  },
  'workspaceBuilds.agents': {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      const { workspace, build } = await w.member.workspaceAgents.get(agentId);
      assert.deepEqual(
        (await w.member.workspaceBuilds.agents(workspace, build)).map((a) => a.id),
        [agentId],
      );
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      const { workspace, build } = await w.owner.workspaceAgents.get(agentId);
      await expectRefused(() => w.member.workspaceBuilds.agents(workspace, build));
    },
  },
  'workspaceBuilds.scriptTimings': {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      const { workspace, agent } = await w.member.workspaceAgents.get(agentId);
      assert.deepEqual(await w.member.workspaceBuilds.scriptTimings(workspace, [agent]), []);
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      const { workspace, agent } = await w.owner.workspaceAgents.get(agentId);
      await expectRefused(() => w.member.workspaceBuilds.scriptTimings(workspace, [agent]));
    },
  },
  'workspaces.listDetails': {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      const { workspace, build, resource } = await w.member.workspaceAgents.get(agentId);
      const details = await w.member.workspaces.listDetails([workspace], [build]);
      assert.equal(details.users.get(w.memberId)?.id, w.memberId);
      assert.equal(details.agents.get(resource.id)?.[0]?.id, agentId);
      assert.equal(details.templates.get(workspace.template_id)?.id, workspace.template_id);
    },
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaces.listDetails([workspace], [build]));
    },
  },
  'workspaces.listDueForLifecycle': {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      await finishJob(w, build.job_id);
      await w.member.workspaceBuilds.setDeadline(workspace, build, w.test.clock.now().toISOString());
      const later = new Date(w.test.clock.now().getTime() + 60_000);
      assert.ok((await w.owner.workspaces.listDueForLifecycle(later)).some((row) => row.id === workspace.id));
    },
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.owner);
      await finishJob(w, build.job_id);
      await w.owner.workspaceBuilds.setDeadline(workspace, build, w.test.clock.now().toISOString());
      const later = new Date(w.test.clock.now().getTime() + 60_000);
      assert.ok(!(await w.member.workspaces.listDueForLifecycle(later)).some((row) => row.id === workspace.id));
    },
  },
  'workspaces.lifecycleFacts': {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      const facts = await w.member.workspaces.lifecycleFacts([workspace]);
      assert.equal(facts.builds.get(workspace.id)?.id, build.id);
      assert.equal(facts.ownerStatuses.get(w.memberId), 'active');
    },
    denied: async (w) => expectRefused(async () => w.member.workspaces.lifecycleFacts([(await workspaceFixture(w, w.owner)).workspace])),
  },
  'workspaceBuilds.get': {
    allowed: async (w) => {
      const { build } = await workspaceFixture(w, w.member);
      assert.equal((await w.member.workspaceBuilds.get(build.id)).build.id, build.id);
    },
    denied: async (w) => {
      const { build } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaceBuilds.get(build.id));
    },
  },
  'workspaceBuilds.cancelJob': {
    allowed: async (w) => {
      const { workspace, job } = await workspaceFixture(w, w.member);
      await w.member.workspaceBuilds.cancelJob(workspace, job, cancellation(w));
    },
    denied: async (w) => {
      const { workspace, job } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.workspaceBuilds.cancelJob(workspace, job, cancellation(w)));
    },
  },
  'workspaceBuilds.setProvisionerState': {
    allowed: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      await w.owner.workspaceBuilds.setProvisionerState(workspace, build, Buffer.from('{}'));
    },
    // The member owns the workspace but does not manage its template.
    denied: async (w) => {
      const { workspace, build } = await workspaceFixture(w, w.member);
      await expectRefused(() => w.member.workspaceBuilds.setProvisionerState(workspace, build, Buffer.from('{}')));
    },
  },
  'portShares.list': {
    allowed: async (w) => assert.deepEqual(await w.member.portShares.list((await workspaceFixture(w, w.member)).workspace), []),
    denied: async (w) => expectRefused(async () => w.member.portShares.list((await workspaceFixture(w, w.owner)).workspace)),
  },
  'portShares.upsert': {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      await w.member.portShares.upsert(workspace, {
        workspace_id: workspace.id,
        agent_name: 'main',
        port: 8080,
        share_level: 'public',
        protocol: 'http',
      });
      assert.equal((await w.member.portShares.list(workspace)).length, 1);
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.owner);
      await expectRefused(() =>
        w.member.portShares.upsert(workspace, {
          workspace_id: workspace.id,
          agent_name: 'main',
          port: 8080,
          share_level: 'public',
          protocol: 'http',
        }),
      );
    },
  },
  'portShares.delete': {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      await w.member.portShares.upsert(workspace, {
        workspace_id: workspace.id,
        agent_name: 'main',
        port: 8080,
        share_level: 'public',
        protocol: 'http',
      });
      assert.equal(await w.member.portShares.delete(workspace, 'main', 8080), true);
    },
    denied: async (w) =>
      expectRefused(async () => w.member.portShares.delete((await workspaceFixture(w, w.owner)).workspace, 'main', 8080)),
  },
  'workspaceAgents.get': {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      assert.equal((await w.member.workspaceAgents.get(agentId)).agent.id, agentId);
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      await expectRefused(() => w.member.workspaceAgents.get(agentId));
    },
  },
  'workspaceAgents.authorizeConnect': {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      w.member.workspaceAgents.authorizeConnect(await w.member.workspaceAgents.get(agentId));
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      await expectRefused(async () => w.member.workspaceAgents.authorizeConnect(await w.owner.workspaceAgents.get(agentId)));
    },
  },
  'workspaceAgents.logs': {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      assert.deepEqual(await w.member.workspaceAgents.logs(await w.member.workspaceAgents.get(agentId), {}), []);
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      await expectRefused(async () => w.member.workspaceAgents.logs(await w.owner.workspaceAgents.get(agentId), {}));
    },
  },
  'workspaceAgents.getByTokenHash': {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      assert.equal((await w.member.workspaceAgents.getByTokenHash(`hash-${agentId}`))?.agent.id, agentId);
    },
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      await expectRefused(() => w.member.workspaceAgents.getByTokenHash(`hash-${agentId}`));
    },
  },
  'workspaceAgents.authenticate': {
    allowed: async (w) => {
      const { agentId } = await agentFixture(w, w.member);
      // The second answer comes from the cache the first one filled.
      for (const cached of [false, true]) {
        const authenticated = await w.member.workspaceAgents.authenticate(`hash-${agentId}`, { cached });
        assert.deepEqual([authenticated?.found.agent.id, authenticated?.current], [agentId, true]);
      }
    },
    // A cached agent is authorized as a looked-up one is.
    denied: async (w) => {
      const { agentId } = await agentFixture(w, w.owner);
      assert.equal((await w.owner.workspaceAgents.authenticate(`hash-${agentId}`, { cached: false }))?.current, true);
      await expectRefused(() => w.member.workspaceAgents.authenticate(`hash-${agentId}`, { cached: true }));
      await expectRefused(() => w.member.workspaceAgents.authenticate(`hash-${agentId}`, { cached: false }));
    },
  },
  'workspaceAgents.isBuildCurrent': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      assert.equal(await agentStoreOf(w, found).workspaceAgents.isBuildCurrent(found), true);
    },
    // An agent's own store reaches its owner's workspaces only.
    denied: async (w) => {
      const mine = await foundAgent(w, w.member);
      await expectRefused(async () => agentStoreOf(w, mine).workspaceAgents.isBuildCurrent(await foundAgent(w, w.owner)));
    },
  },
  'workspaceAgents.isBuildLatest': {
    allowed: async (w) => assert.equal(await w.member.workspaceAgents.isBuildLatest(await foundAgent(w, w.member)), true),
    denied: async (w) => expectRefused(async () => w.member.workspaceAgents.isBuildLatest(await foundAgent(w, w.owner))),
  },
  'workspaceAgents.getRow': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      assert.equal((await w.member.workspaceAgents.getRow(found))?.id, found.agent.id);
    },
    denied: async (w) => expectRefused(async () => w.member.workspaceAgents.getRow(await foundAgent(w, w.owner))),
  },
  'workspaceAgents.updateReport': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await agentStoreOf(w, found).workspaceAgents.updateReport(found, { version: 'v1.2.3' });
      assert.equal((await w.member.workspaceAgents.getRow(found))?.version, 'v1.2.3');
    },
    denied: async (w) => {
      const mine = await foundAgent(w, w.member);
      await expectRefused(async () =>
        agentStoreOf(w, mine).workspaceAgents.updateReport(await foundAgent(w, w.owner), { version: 'v6.6.6' }),
      );
    },
  },
  'workspaceAgents.markDisconnected': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await agentStoreOf(w, found).workspaceAgents.markDisconnected(found, '');
      assert.notEqual((await w.member.workspaceAgents.getRow(found))?.disconnected_at, null);
    },
    denied: async (w) => expectRefused(async () => w.member.workspaceAgents.markDisconnected(await foundAgent(w, w.owner), '')),
  },
  'workspaceAgents.insertScriptTiming': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await agentStoreOf(w, found).workspaceAgents.insertScriptTiming(found, scriptTiming(w));
    },
    denied: async (w) =>
      expectRefused(async () => w.outsider.workspaceAgents.insertScriptTiming(await foundAgent(w, w.member), scriptTiming(w))),
  },
  'workspaceAgents.metadata': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await agentStoreOf(w, found).workspaceAgents.recordMetadata(found, [metadataResult(w)]);
      assert.deepEqual(
        (await w.member.workspaceAgents.metadata(found)).map((row) => [row.key, row.value]),
        [['load', '0.5']],
      );
    },
    denied: async (w) => expectRefused(async () => w.member.workspaceAgents.metadata(await foundAgent(w, w.owner))),
  },
  'workspaceAgents.recordMetadata': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await agentStoreOf(w, found).workspaceAgents.recordMetadata(found, [metadataResult(w)]);
      // A later result of the same key replaces the earlier one.
      await agentStoreOf(w, found).workspaceAgents.recordMetadata(found, [{ ...metadataResult(w), value: '0.7' }]);
      assert.deepEqual(
        (await w.owner.workspaceAgents.metadata(found)).map((row) => row.value),
        ['0.7'],
      );
    },
    // Only the agent (or whoever may update the workspace) records what it collected.
    denied: async (w) =>
      expectRefused(async () => w.outsider.workspaceAgents.recordMetadata(await foundAgent(w, w.member), [metadataResult(w)])),
  },
  'workspaceAgents.appendLogs': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      const outcome = await agentStoreOf(w, found).workspaceAgents.appendLogs(found, logBatch(w));
      assert.equal(outcome.stored, true);
      assert.equal((await w.member.workspaceAgents.logs(found, {})).length, 1);
    },
    denied: async (w) => {
      const mine = await foundAgent(w, w.member);
      await expectRefused(async () => agentStoreOf(w, mine).workspaceAgents.appendLogs(await foundAgent(w, w.owner), logBatch(w)));
    },
  },
  'workspaceAgents.upsertLogSource': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await agentStoreOf(w, found).workspaceAgents.upsertLogSource(found, logSource(w));
    },
    denied: async (w) => expectRefused(async () => w.member.workspaceAgents.upsertLogSource(await foundAgent(w, w.owner), logSource(w))),
  },
  'workspaceAgents.insertAppStatus': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await agentStoreOf(w, found).workspaceAgents.insertAppStatus(found, appStatus(w));
    },
    denied: async (w) => expectRefused(async () => w.member.workspaceAgents.insertAppStatus(await foundAgent(w, w.owner), appStatus(w))),
  },
  'workspaceAgents.findByInstanceId': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      const instanceId = await onInstance(w, found.agent.id);
      const byIdentity = w.test.daemon.store.as(SYSTEM_SUBJECTS.instanceIdentity);
      assert.equal((await byIdentity.workspaceAgents.findByInstanceId(instanceId))?.owners?.agent.id, found.agent.id);
      assert.equal((await w.member.workspaceAgents.findByInstanceId(instanceId))?.jobType, 'workspace_build');
    },
    denied: async (w) => {
      const found = await foundAgent(w, w.owner);
      const instanceId = await onInstance(w, found.agent.id);
      await expectRefused(() => w.member.workspaceAgents.findByInstanceId(instanceId));
    },
  },
  'workspaceAgents.replaceToken': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      await w.test.daemon.store.as(SYSTEM_SUBJECTS.instanceIdentity).workspaceAgents.replaceToken(found, `new-hash-${found.agent.id}`);
      assert.equal((await w.member.workspaceAgents.getByTokenHash(`new-hash-${found.agent.id}`))?.agent.id, found.agent.id);
    },
    denied: async (w) => {
      const found = await foundAgent(w, w.owner);
      await expectRefused(() => w.member.workspaceAgents.replaceToken(found, 'stolen'));
    },
  },
  'workspaceAgents.listOfLatestBuild': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      assert.deepEqual(
        (await w.member.workspaceAgents.listOfLatestBuild(found.workspace)).map((agent) => agent.id),
        [found.agent.id],
      );
    },
    denied: async (w) => expectRefused(async () => w.member.workspaceAgents.listOfLatestBuild((await foundAgent(w, w.owner)).workspace)),
  },
  'portShares.get': {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      await w.member.portShares.upsert(workspace, {
        workspace_id: workspace.id,
        agent_name: 'main',
        port: 8080,
        share_level: 'public',
        protocol: 'http',
      });
      assert.equal((await w.member.portShares.get(workspace, 'main', 8080))?.share_level, 'public');
      assert.equal(await w.member.portShares.get(workspace, 'main', 8081), undefined);
    },
    denied: async (w) => expectRefused(async () => w.member.portShares.get((await workspaceFixture(w, w.owner)).workspace, 'main', 8080)),
  },
  'workspaceAgents.labels': {
    allowed: async (w) => {
      const found = await foundAgent(w, w.member);
      const [label] = await w.owner.workspaceAgents.labels([found.agent.id]);
      assert.equal(label?.owner, 'member');
      assert.equal(label?.workspace, found.workspace.name);
    },
    denied: async (w) => assert.deepEqual(await w.member.workspaceAgents.labels([(await foundAgent(w, w.owner)).agent.id]), []),
  },
  'groups.get': {
    // Every member of an organization reads its "Everyone" group, whose id is the organization's.
    allowed: async (w) => assert.equal((await w.member.groups.get(defaultOrg(w))).name, 'Everyone'),
    denied: async (w) => expectRefused(() => w.outsider.groups.get(defaultOrg(w))),
  },
  'groups.getByName': {
    allowed: async (w) => assert.equal((await w.member.groups.getByName(defaultOrg(w), 'Everyone')).id, defaultOrg(w)),
    denied: async (w) => expectRefused(() => w.outsider.groups.getByName(defaultOrg(w), 'Everyone')),
  },
  'groups.create': {
    allowed: async (w) => assert.equal((await w.owner.groups.create(groupRow(w, 'accounting-group'))).name, 'accounting-group'),
    denied: async (w) => expectRefused(() => w.member.groups.create(groupRow(w, 'members-group'))),
  },
  'groups.list': {
    allowed: async (w) => {
      const names = (await w.owner.groups.list({ organizationId: defaultOrg(w), limit: 0, offset: 0 })).map((g) => g.name);
      assert.ok(names.includes('accounting-group') && names.includes('Everyone'));
    },
    // A member outside every group sees only "Everyone"; a user of no organization, nothing.
    denied: async (w) => {
      assert.deepEqual(
        (await w.member.groups.list({ organizationId: defaultOrg(w), limit: 0, offset: 0 })).map((g) => g.name),
        ['Everyone'],
      );
      assert.deepEqual(await w.outsider.groups.list({ limit: 0, offset: 0 }), []);
    },
  },
  'groups.members': {
    allowed: async (w) => {
      const everyone = await w.owner.groups.get(defaultOrg(w));
      const members = (await w.owner.groups.members([everyone])).get(everyone.id);
      assert.ok(members?.members.some((m) => m.id === w.memberId));
      assert.equal(members?.total, members?.members.length);
    },
    denied: async (w) => {
      const hidden = await w.owner.groups.getByName(defaultOrg(w), 'accounting-group');
      await expectRefused(() => w.member.groups.members([hidden]));
    },
  },
  'groups.organizationMembersAmong': {
    allowed: async (w) => {
      const group = await w.owner.groups.getByName(defaultOrg(w), 'accounting-group');
      assert.deepEqual([...(await w.owner.groups.organizationMembersAmong(group, [w.memberId]))], [w.memberId]);
    },
    denied: async (w) => {
      const hidden = await w.owner.groups.getByName(defaultOrg(w), 'accounting-group');
      await expectRefused(() => w.member.groups.organizationMembersAmong(hidden, [w.memberId]));
    },
  },
  'groups.update': {
    allowed: async (w) => {
      const group = await w.owner.groups.getByName(defaultOrg(w), 'accounting-group');
      const updated = await w.owner.groups.update(group.id, {
        fields: { quota_allowance: 5 },
        addUserIds: [w.memberId],
        removeUserIds: [],
      });
      assert.equal(updated.quota_allowance, 5);
    },
    // The member reads "Everyone" but may not change it.
    denied: async (w) =>
      expectRefused(() => w.member.groups.update(defaultOrg(w), { fields: { quota_allowance: 9 }, addUserIds: [], removeUserIds: [] })),
  },
  'groups.delete': {
    allowed: async (w) => {
      const group = await w.owner.groups.getByName(defaultOrg(w), 'accounting-group');
      await w.owner.groups.delete(group.id);
      await assert.rejects(() => w.owner.groups.get(group.id), NotFoundError);
    },
    denied: async (w) => expectRefused(() => w.member.groups.delete(defaultOrg(w))),
  },
  'notificationEvents.nearingDeadline': {
    allowed: async (w) => {
      const { workspace } = await startedFixture(w, w.member);
      const now = w.test.clock.now();
      const due = await system(w, 'notificationEvents').notificationEvents.nearingDeadline(now, new Date(now.getTime() + 3_600_000));
      assert.equal(due.find((row) => row.workspace.id === workspace.id)?.owner.id, w.memberId);
    },
    denied: async (w) => {
      const { workspace } = await startedFixture(w, w.member);
      const now = w.test.clock.now();
      const due = await w.outsider.notificationEvents.nearingDeadline(now, new Date(now.getTime() + 3_600_000));
      assert.equal(
        due.find((row) => row.workspace.id === workspace.id),
        undefined,
      );
    },
  },
  'notificationEvents.workspacesOfTemplate': {
    allowed: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      const template = await w.owner.templates.get(workspace.template_id);
      const rows = await system(w, 'notificationEvents').notificationEvents.workspacesOfTemplate(template);
      assert.deepEqual(
        rows.map((row) => [row.workspace.id, row.owner.id]),
        [[workspace.id, w.memberId]],
      );
    },
    denied: async (w) => {
      const { workspace } = await workspaceFixture(w, w.member);
      const template = await w.owner.templates.get(workspace.template_id);
      await expectRefused(() => w.outsider.notificationEvents.workspacesOfTemplate(template));
    },
  },
  'notificationEvents.finishedBuild': {
    allowed: async (w) => {
      const { workspace, job } = await workspaceFixture(w, w.member);
      const facts = await system(w, 'notificationEvents').notificationEvents.finishedBuild(job.id);
      assert.deepEqual([facts?.workspace.id, facts?.owner.id, facts?.initiator?.id], [workspace.id, w.memberId, w.memberId]);
    },
    denied: async (w) => {
      const { job } = await workspaceFixture(w, w.owner);
      await expectRefused(() => w.member.notificationEvents.finishedBuild(job.id));
    },
  },
  'notificationEvents.usersWithSiteRoles': {
    allowed: async (w) =>
      assert.ok((await system(w, 'notificationEvents').notificationEvents.usersWithSiteRoles(['owner'])).some((u) => u.id === w.ownerId)),
    denied: async (w) => expectRefused(() => w.member.notificationEvents.usersWithSiteRoles(['owner'])),
  },
  'notificationEvents.buildOutcomes': {
    allowed: async (w) => {
      const { workspace, job } = await workspaceFixture(w, w.member);
      const now = w.test.clock.now();
      await w.test.daemon.store.db
        .updateTable('provisioner_jobs')
        .set({ error: 'accounting failure', completed_at: now.toISOString() })
        .where('id', '=', job.id)
        .execute();
      const outcomes = await system(w, 'notificationEvents').notificationEvents.buildOutcomes(
        new Date(now.getTime() - 60_000),
        new Date(now.getTime() + 60_000),
      );
      const mine = outcomes.find((entry) => entry.template.id === workspace.template_id);
      assert.deepEqual(
        mine?.failed.map((failure) => [failure.workspace.id, failure.error]),
        [[workspace.id, 'accounting failure']],
      );
    },
    denied: async (w) => {
      const { workspace, job } = await workspaceFixture(w, w.owner);
      const now = w.test.clock.now();
      await w.test.daemon.store.db
        .updateTable('provisioner_jobs')
        .set({ error: 'hidden', completed_at: now.toISOString() })
        .where('id', '=', job.id)
        .execute();
      const outcomes = await w.outsider.notificationEvents.buildOutcomes(
        new Date(now.getTime() - 60_000),
        new Date(now.getTime() + 60_000),
      );
      assert.equal(
        outcomes.find((entry) => entry.template.id === workspace.template_id),
        undefined,
      );
    },
  },
  'notificationEvents.claimReportRun': {
    allowed: async (w) => {
      const now = w.test.clock.now();
      const kind = `accounting-report-${newId()}`;
      const since = await system(w, 'notificationEvents').notificationEvents.claimReportRun(kind, now, 3_600_000);
      assert.equal(since?.getTime(), now.getTime() - 3_600_000);
      assert.equal(
        await system(w, 'notificationEvents').notificationEvents.claimReportRun(kind, now, 3_600_000),
        undefined,
        'claimed once',
      );
    },
    denied: async (w) =>
      expectRefused(() => w.member.notificationEvents.claimReportRun(`accounting-report-${newId()}`, w.test.clock.now(), 1)),
  },
  'notifications.enqueue': {
    allowed: async (w) => assert.equal(await system(w, 'notifier').notifications.enqueue([messageRow(w, w.memberId)]), 1),
    denied: async (w) => expectRefused(() => w.member.notifications.enqueue([messageRow(w, w.memberId)])),
  },
  'notifications.lease': {
    allowed: async (w) => {
      const row = messageRow(w, w.memberId);
      await system(w, 'notifier').notifications.enqueue([row]);
      const leased = await system(w, 'notifier').notifications.lease(1000, w.test.clock.now(), 60_000);
      assert.ok(leased.some((message) => message.id === row.id && message.status === 'leased' && message.attempt_count === 1));
    },
    denied: async (w) => expectRefused(() => w.member.notifications.lease(1, w.test.clock.now(), 60_000)),
  },
  'notifications.markSent': {
    allowed: async (w) => {
      const row = messageRow(w, w.memberId);
      await system(w, 'notifier').notifications.enqueue([row]);
      await system(w, 'notifier').notifications.markSent(row.id);
      const listed = await w.owner.notifications.listMessages({ status: 'sent', limit: 1000 });
      assert.ok(listed.some((message) => message.id === row.id));
    },
    denied: async (w) => expectRefused(() => w.member.notifications.markSent(newId())),
  },
  'notifications.markFailed': {
    allowed: async (w) => {
      const row = messageRow(w, w.memberId);
      await system(w, 'notifier').notifications.enqueue([row]);
      await system(w, 'notifier').notifications.markFailed(row.id, 'refused', 'permanent');
      const listed = await w.owner.notifications.listMessages({ status: 'permanent_failure', limit: 1000 });
      assert.equal(listed.find((message) => message.id === row.id)?.status_reason, 'refused');
    },
    denied: async (w) => expectRefused(() => w.member.notifications.markFailed(newId(), 'refused', 'permanent')),
  },
  'notifications.listMessages': {
    allowed: async (w) => assert.ok(Array.isArray(await w.owner.notifications.listMessages({ limit: 10 }))),
    denied: async (w) => expectRefused(() => w.member.notifications.listMessages({ limit: 10 })),
  },
  'notifications.recipient': {
    allowed: async (w) => assert.equal((await system(w, 'notifier').notifications.recipient(w.memberId)).username, 'member'),
    denied: async (w) => expectRefused(() => system(w, 'userDormancy').notifications.recipient(w.memberId)),
  },
  'notifications.preferences': {
    allowed: async (w) => assert.ok(Array.isArray(await w.member.notifications.preferences(w.memberId))),
    denied: async (w) => expectRefused(() => w.member.notifications.preferences(w.ownerId)),
  },
  'notifications.setPreferences': {
    allowed: async (w) => {
      await w.member.notifications.setPreferences(w.memberId, new Map([[TEST_KIND_ID, true]]));
      const stored = await w.owner.notifications.preferences(w.memberId);
      assert.equal(stored.find((row) => row.template_id === TEST_KIND_ID)?.disabled, 1);
      await w.owner.notifications.setPreferences(w.memberId, new Map([[TEST_KIND_ID, false]]));
    },
    denied: async (w) => expectRefused(() => w.member.notifications.setPreferences(w.ownerId, new Map([[TEST_KIND_ID, true]]))),
  },
  'notifications.templateMethods': {
    allowed: async (w) => assert.ok((await w.member.notifications.templateMethods()) instanceof Map),
    denied: async (w) => expectRefused(() => system(w, 'userDormancy').notifications.templateMethods()),
  },
  'notifications.setTemplateMethod': {
    allowed: async (w) => {
      await w.owner.notifications.setTemplateMethod(TEST_KIND_ID, 'webhook');
      assert.equal((await w.member.notifications.templateMethods()).get(TEST_KIND_ID), 'webhook');
      await w.owner.notifications.setTemplateMethod(TEST_KIND_ID, '');
    },
    denied: async (w) => expectRefused(() => w.member.notifications.setTemplateMethod(TEST_KIND_ID, 'webhook')),
  },
  'notifications.paused': {
    allowed: async (w) => assert.equal(await w.member.notifications.paused(), false),
    denied: async (w) => expectRefused(() => system(w, 'userDormancy').notifications.paused()),
  },
  'notifications.setPaused': {
    allowed: async (w) => {
      await w.owner.notifications.setPaused(true);
      assert.equal(await system(w, 'notifier').notifications.paused(), true);
      await w.owner.notifications.setPaused(false);
    },
    denied: async (w) => expectRefused(() => w.member.notifications.setPaused(true)),
  },
  'notifications.insertInbox': {
    allowed: async (w) => assert.equal(await system(w, 'notifier').notifications.insertInbox(inboxRow(w, w.memberId)), true),
    denied: async (w) => expectRefused(() => w.member.notifications.insertInbox(inboxRow(w, w.ownerId))),
  },
  'notifications.getInbox': {
    allowed: async (w) => {
      const row = inboxRow(w, w.memberId);
      await system(w, 'notifier').notifications.insertInbox(row);
      assert.equal((await w.member.notifications.getInbox(row.id)).title, row.title);
    },
    denied: async (w) => {
      const row = inboxRow(w, w.ownerId);
      await system(w, 'notifier').notifications.insertInbox(row);
      // Hidden, not refused: another user's notification is not found.
      await assert.rejects(() => w.member.notifications.getInbox(row.id), NotFoundError);
    },
  },
  'notifications.listInbox': {
    allowed: async (w) => {
      const row = inboxRow(w, w.memberId);
      await system(w, 'notifier').notifications.insertInbox(row);
      const listed = await w.member.notifications.listInbox(inboxOf(w.memberId));
      assert.ok(listed.some((notification) => notification.id === row.id));
    },
    denied: async (w) => expectRefused(() => w.member.notifications.listInbox(inboxOf(w.ownerId))),
  },
  'notifications.unreadCount': {
    allowed: async (w) => {
      const before = await w.member.notifications.unreadCount(w.memberId);
      await system(w, 'notifier').notifications.insertInbox(inboxRow(w, w.memberId));
      assert.equal(await w.member.notifications.unreadCount(w.memberId), before + 1);
    },
    denied: async (w) => expectRefused(() => w.member.notifications.unreadCount(w.ownerId)),
  },
  'notifications.setInboxRead': {
    allowed: async (w) => {
      const row = inboxRow(w, w.memberId);
      await system(w, 'notifier').notifications.insertInbox(row);
      assert.notEqual((await w.member.notifications.setInboxRead(row, true)).read_at, null);
      assert.notEqual((await w.member.notifications.getInbox(row.id)).read_at, null);
    },
    denied: async (w) => {
      const row = inboxRow(w, w.ownerId);
      await system(w, 'notifier').notifications.insertInbox(row);
      await expectRefused(() => w.member.notifications.setInboxRead(row, true));
    },
  },
  'notifications.markAllInboxRead': {
    allowed: async (w) => {
      await system(w, 'notifier').notifications.insertInbox(inboxRow(w, w.memberId));
      await w.member.notifications.markAllInboxRead(w.memberId);
      assert.equal(await w.member.notifications.unreadCount(w.memberId), 0);
    },
    denied: async (w) => expectRefused(() => w.member.notifications.markAllInboxRead(w.ownerId)),
  },
  'retention.purgeBatch': {
    // Only the purger deletes by age; a year long gone touches none of the other cases' rows.
    allowed: async (w) => {
      const purger = w.test.daemon.store.as(SYSTEM_SUBJECTS.purger);
      const id = newId();
      await w.test.daemon.store.db
        .insertInto('audit_logs')
        .values({ ...ancientAuditRow, id })
        .execute();
      assert.equal(await purger.retention.purgeBatch('audit_logs', new Date('2000-01-01T00:00:00.000Z'), 10), 1);
      assert.equal(await purger.retention.purgeBatch('api_keys', new Date('2000-01-01T00:00:00.000Z'), 10), 0);
    },
    denied: async (w) => {
      const before = new Date('2000-01-01T00:00:00.000Z');
      await expectRefused(() => w.member.retention.purgeBatch('audit_logs', before, 10));
      await expectRefused(() => w.member.retention.purgeBatch('api_keys', before, 10));
      await expectRefused(() =>
        w.test.daemon.store.as(SYSTEM_SUBJECTS.userDormancy).retention.purgeBatch('workspace_usage_stats', before, 10),
      );
    },
  },
};

/** An audit entry from long before any retention, for the purge's case. */
const ancientAuditRow = {
  time: '1999-01-01T00:00:00.000Z',
  user_id: null,
  organization_id: '',
  ip: '',
  user_agent: '',
  resource_type: 'template',
  resource_id: '',
  resource_target: 'ancient',
  resource_icon: '',
  action: 'create',
  diff: '{}',
  status_code: 200,
  additional_fields: '{}',
  request_id: '',
};

/** The test notification's kind, which preferences and method choices name in the cases. */
const TEST_KIND_ID = 'c425f63e-716a-4bf4-ae24-78348f706c3f';

function messageRow(w: World, userId: string) {
  const now = w.test.clock.now().toISOString();
  return {
    id: newId(),
    template_id: TEST_KIND_ID,
    user_id: userId,
    method: 'inbox',
    status: 'pending',
    status_reason: '',
    created_by: 'accounting',
    payload: '{}',
    attempt_count: 0,
    targets: '[]',
    created_at: now,
    updated_at: now,
    leased_until: null,
    next_retry_after: null,
    dedupe_hash: newId(),
  };
}

function inboxRow(w: World, userId: string) {
  return {
    id: newId(),
    user_id: userId,
    template_id: TEST_KIND_ID,
    targets: '[]',
    title: 'A test notification',
    content: 'Hello',
    icon: '',
    actions: '[]',
    read_at: null,
    created_at: w.test.clock.now().toISOString(),
  };
}

function inboxOf(userId: string) {
  return { userId, targets: [], templates: [], readStatus: 'all' as const, limit: 25 };
}

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
    quiet_hours_schedule: '',
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
  const { file } = await w.owner.files.save(fileRow(w, w.ownerId, `fixture-${n}`));
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
    declared_description: '',
    declared_icon: '',
  };
  await store.templateVersions.insert(version, job);
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
  return { template: await w.owner.templates.insert(fixtureTemplate(w, version.id)) };
}

/** A dry run by the owner of a template's version. */
async function dryRunFixture(w: World) {
  const { template } = await templateFixture(w);
  const { version, job } = await w.owner.templateVersions.get(template.active_version_id);
  const dryRun = {
    ...job,
    id: newId(),
    type: 'template_version_dry_run',
    initiator_id: w.ownerId,
    input: JSON.stringify({ template_version_id: version.id }),
  };
  await w.owner.templateVersions.insertDryRunJob(version, dryRun);
  return { version, dryRun };
}

/** A workspace of the subject's own, created by it from a template everyone may use. */
async function workspaceFixture(w: World, store: AuthorizedStore) {
  const { template } = await templateFixture(w);
  const { version, job: importJob } = await w.owner.templateVersions.get(template.active_version_id);
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
    user_acl: '{}',
    group_acl: '{}',
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
  await store.workspaces.insert(store.workspaces.grantCreation(ownerId, template), workspace, { build, job, orphan: false });
  return { workspace, build, job };
}

/** A workspace of the subject's whose first build succeeded, with a deadline half an hour away. */
async function startedFixture(w: World, store: AuthorizedStore) {
  const fixture = await workspaceFixture(w, store);
  const now = w.test.clock.now();
  const db = w.test.daemon.store.db;
  await db.updateTable('provisioner_jobs').set({ completed_at: now.toISOString(), error: '' }).where('id', '=', fixture.job.id).execute();
  const deadline = new Date(now.getTime() + 30 * 60_000).toISOString();
  await db.updateTable('workspace_builds').set({ deadline }).where('id', '=', fixture.build.id).execute();
  return fixture;
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
  return w.owner.workspaceAgents.get(agentId);
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

function metadataResult(w: World) {
  return { key: 'load', value: '0.5', error: '', collected_at: w.test.clock.now().toISOString() };
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
  return (await provisioner(w).provisionerJobs.claimNext(defaultOrg(w), { workerId, provisioners: ['echo'], tags: UNTAGGED }))?.job;
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
  return {
    id: newId(),
    name,
    display_name: name,
    description: '',
    icon: '',
    is_default: 0,
    workspace_sharing_disabled: 0,
    created_at: now,
    updated_at: now,
  };
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

function linkTokens(accessToken: string) {
  return { accessToken, refreshToken: '', expiry: null, extra: {} };
}

function flowRow(w: World, userId: string, stateHash: string) {
  return {
    state_hash: stateHash,
    provider_id: 'acct-git',
    user_id: userId,
    code_verifier: 'verifier',
    redirect: '/',
    expires_at: new Date(w.test.clock.now().getTime() + 600_000).toISOString(),
  };
}

async function expectRefused(call: () => Promise<unknown>): Promise<void> {
  await assert.rejects(call, (error: unknown) => error instanceof NotAuthorizedError);
}

/** Every method of the store: its own (`can`), and each family's as `family.method` (`users.get`). */
function storeMethods(store: AuthorizedStore): string[] {
  return Object.entries(Object.getOwnPropertyDescriptors(AuthorizedStore.prototype)).flatMap(([name, descriptor]) => {
    if (typeof descriptor.value === 'function') return name === 'constructor' ? [] : [name];
    const family: unknown = descriptor.get?.call(store);
    if (!(family instanceof StoreFamily)) return [];
    return Object.getOwnPropertyNames(Object.getPrototypeOf(family))
      .filter((method) => method !== 'constructor')
      .map((method) => `${name}.${method}`);
  });
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
    const missing = storeMethods(world.owner).filter((name) => !(name in CASES));
    assert.deepEqual(missing, [], `authorizing store methods without an authorization case: ${missing.join(', ')}`);
  });

  for (const [method, testCase] of Object.entries(CASES)) {
    it(`${method}: allows the entitled subject and refuses the other`, async () => {
      await testCase.allowed(world);
      await testCase.denied(world);
    });
  }
});

function groupRow(w: World, name: string) {
  return {
    id: newId(),
    organization_id: defaultOrg(w),
    name,
    display_name: '',
    avatar_url: '',
    quota_allowance: 0,
    source: 'user',
    created_at: w.test.clock.now().toISOString(),
  };
}
