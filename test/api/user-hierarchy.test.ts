import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/domain/passwords.js';
import { newApiKey } from '../../src/domain/sessions.js';
import { createTar } from '../../src/lib/archive/index.js';
import { newId } from '../../src/lib/random.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * Nobody acts on a user above them: every route that changes, signs in as, or removes a user
 * (found in the daemon's route table, so a new one must join) is called by each site and
 * organization role on targets holding each role. A caller who could not assign every role the
 * target holds is refused with a 403, and the target is read again to show nothing changed.
 */

const ACTORS = [
  'owner',
  'userAdmin',
  'templateAdmin',
  'auditor',
  'member',
  'orgAdmin',
  'orgUserAdmin',
  'orgTemplateAdmin',
  'orgAuditor',
  'orgCustom',
] as const;
type Actor = (typeof ACTORS)[number];

const TARGETS = ['owner', 'userAdmin', 'templateAdmin', 'auditor', 'member', 'orgAdmin', 'orgUserAdmin'] as const;
type Target = (typeof TARGETS)[number];

/** Stored roles: site roles, and roles in the default organization (every user here belongs to it). */
interface Held {
  readonly site: readonly string[];
  readonly org: readonly string[];
}

/** A custom organization role that may manage members and their roles, as an organization user admin does. */
const CUSTOM_ROLE = 'member-keeper';

const ROLES: Readonly<Record<Actor | Target, Held>> = {
  owner: { site: ['owner'], org: [] },
  userAdmin: { site: ['user-admin'], org: [] },
  templateAdmin: { site: ['template-admin'], org: [] },
  auditor: { site: ['auditor'], org: [] },
  member: { site: [], org: [] },
  orgAdmin: { site: [], org: ['organization-admin'] },
  orgUserAdmin: { site: [], org: ['organization-user-admin'] },
  orgTemplateAdmin: { site: [], org: ['organization-template-admin'] },
  orgAuditor: { site: [], org: ['organization-auditor'] },
  orgCustom: { site: [], org: [CUSTOM_ROLE] },
};

const ORG_ROLES = ['organization-admin', 'organization-user-admin', 'organization-template-admin', 'organization-auditor'];

/**
 * The roles each actor could assign, written out from the assignment rules: owners any, organization
 * admins their organization's; user admins only the implicit member roles, which rank nobody.
 */
const NONE: Held = { site: [], org: [] };
const ASSIGNABLE: Readonly<Record<Actor, Held>> = {
  owner: { site: ['owner', 'user-admin', 'template-admin', 'auditor'], org: [...ORG_ROLES, CUSTOM_ROLE] },
  orgAdmin: { site: [], org: [...ORG_ROLES, CUSTOM_ROLE] },
  userAdmin: NONE,
  templateAdmin: NONE,
  auditor: NONE,
  member: NONE,
  orgUserAdmin: NONE,
  orgTemplateAdmin: NONE,
  orgAuditor: NONE,
  orgCustom: NONE,
};

/** Which of the target's roles count: site roles only, or also those in the organization the route is about. */
type Scope = 'site' | 'organization' | 'unranked';

function outranks(actor: Actor, target: Target, scope: Scope): boolean {
  if (scope === 'unranked') return true;
  const held = ROLES[target];
  const can = ASSIGNABLE[actor];
  return held.site.every((role) => can.site.includes(role)) && (scope === 'site' || held.org.every((role) => can.org.includes(role)));
}

/** A user the calls act on. */
interface TargetUser {
  readonly id: string;
  readonly username: string;
}

interface World {
  readonly test: TestDaemon;
  readonly owner: CoveClient;
  readonly defaultOrgId: string;
  readonly templateId: string;
  readonly tokens: Readonly<Record<Actor, string>>;
  /** Targets reused by calls that leave them usable. */
  readonly targets: Readonly<Record<Target, TargetUser>>;
  /** A new user holding the target's roles, for calls that change them for good. */
  fresh(target: Target, options?: { readonly member?: boolean }): Promise<TargetUser>;
  unique(prefix: string): string;
}

/** What a call sends beyond its route: a body, and the key it names (for key routes). */
interface Call {
  /** A JSON body, or `site-roles` / `org-roles` for the target's own roles of that kind. */
  readonly body?: unknown;
  readonly keyId?: string;
}

interface RouteCase {
  readonly scope: Scope;
  /** What each actor gets on a target they outrank (or on any target, for an unranked route). */
  readonly expect: Readonly<Record<Actor, number>>;
  /** A status the route's own rules give whatever the rank (an owner is never suspended). */
  readonly exception?: (actor: Actor, target: Target) => number | undefined;
  /** The target of one call: a reused one unless the call changes it for good. */
  target(world: World, target: Target): Promise<TargetUser>;
  call(world: World, target: TargetUser): Call | Promise<Call>;
}

/** Everyone gets `status` except those listed. */
function all(status: number, except: Partial<Record<Actor, number>> = {}): Record<Actor, number> {
  return { ...(Object.fromEntries(ACTORS.map((actor) => [actor, status])) as Record<Actor, number>), ...except };
}

const reused = (world: World, target: Target) => Promise.resolve(world.targets[target]);
const fresh = (world: World, target: Target) => world.fresh(target);

/** Actors who may not read users site-wide: routes that load `:user` as a user answer them 404. */
const BLIND = { member: 404, orgCustom: 404, orgTemplateAdmin: 404, orgAuditor: 404 } as const;

const CASES: Readonly<Record<string, RouteCase>> = {
  'PUT /api/v2/users/:user/password': {
    scope: 'site',
    expect: all(403, { owner: 204, userAdmin: 204, ...BLIND }),
    target: fresh,
    call: () => ({ body: { password: 'A-Brand-New-Passphrase-4' } }),
  },
  'PUT /api/v2/users/:user/profile': {
    scope: 'site',
    expect: all(403, { owner: 200, userAdmin: 200, ...BLIND }),
    target: reused,
    call: (world, target) => ({ body: { username: target.username, name: world.unique('Renamed') } }),
  },
  'PUT /api/v2/users/:user/appearance': {
    scope: 'site',
    expect: all(403, { owner: 200, userAdmin: 200, ...BLIND }),
    target: reused,
    call: (world) => ({ body: { theme_preference: world.unique('theme'), terminal_font: 'fira-code' } }),
  },
  'PUT /api/v2/users/:user/preferences': {
    scope: 'site',
    expect: all(403, { owner: 200, userAdmin: 200, ...BLIND }),
    target: reused,
    call: () => ({ body: { task_notification_alert_dismissed: true } }),
  },
  'PUT /api/v2/users/:user/quiet-hours': {
    scope: 'site',
    expect: all(403, { owner: 200, userAdmin: 200, ...BLIND }),
    target: reused,
    call: () => ({ body: { schedule: 'CRON_TZ=UTC 0 2 * * *' } }),
  },
  'PUT /api/v2/users/:user/notifications/preferences': {
    scope: 'site',
    // Owners choose for anyone below them; a user administrator manages accounts, not what they are told.
    expect: all(403, { owner: 200, ...BLIND }),
    target: reused,
    call: () => ({ body: { template_disabled_map: { 'c425f63e-716a-4bf4-ae24-78348f706c3f': false } } }),
  },
  'PUT /api/v2/users/:user/roles': {
    scope: 'site',
    // The target's own roles again, so that rank is the only reason to refuse: whoever may read a user
    // may set their roles to what they are, and only owners could grant the roles targets hold.
    expect: all(200, BLIND),
    target: reused,
    call: () => ({ body: 'site-roles' }),
  },
  'PUT /api/v2/users/:user/status/suspend': {
    scope: 'site',
    expect: all(403, { owner: 200, userAdmin: 200, ...BLIND }),
    // Owners are never suspended, whoever asks.
    exception: (actor, target) => (actor === 'owner' && target === 'owner' ? 400 : undefined),
    target: fresh,
    call: () => ({}),
  },
  'PUT /api/v2/users/:user/status/activate': {
    scope: 'site',
    expect: all(403, { owner: 200, userAdmin: 200, ...BLIND }),
    target: async (world, target) => {
      const user = await world.fresh(target);
      await world.test.daemon.store.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', user.id).execute();
      return user;
    },
    call: () => ({}),
  },
  'DELETE /api/v2/users/:user': {
    scope: 'site',
    expect: all(403, { owner: 200, userAdmin: 200, ...BLIND }),
    target: fresh,
    call: () => ({}),
  },
  'PUT /api/v2/users/:user/gitsshkey': {
    scope: 'site',
    expect: all(403, { owner: 200, userAdmin: 200, ...BLIND }),
    target: reused,
    call: () => ({}),
  },
  'POST /api/v2/users/:user/keys': {
    scope: 'site',
    expect: all(403, { owner: 201, ...BLIND }),
    target: reused,
    call: () => ({}),
  },
  'POST /api/v2/users/:user/keys/tokens': {
    scope: 'site',
    expect: all(403, { owner: 201, ...BLIND }),
    target: reused,
    call: (world) => ({ body: { token_name: world.unique('token') } }),
  },
  'DELETE /api/v2/users/:user/keys/:keyid': {
    scope: 'site',
    // Only owners may read other users' keys: the rest are told the key does not exist.
    expect: all(404, { owner: 204 }),
    target: reused,
    call: async (world, target) => {
      const key = newApiKey({
        userId: target.id,
        loginType: 'token',
        scope: 'all',
        tokenName: world.unique('doomed'),
        lifetimeMs: 3_600_000,
        ipAddress: '127.0.0.1',
        now: world.test.clock.now(),
      });
      await world.test.daemon.store.db.insertInto('api_keys').values(key.row).execute();
      return { keyId: key.row.id };
    },
  },
  'POST /api/v2/users/:user/convert-login': {
    scope: 'site',
    // Starting a conversion proves the target's password; only the result is a change of sign-in.
    expect: all(403, { owner: 201, userAdmin: 201, ...BLIND }),
    target: reused,
    call: () => ({ body: { to_type: 'oidc', password: STRONG_PASSWORD } }),
  },
  'POST /api/v2/users/:user/workspaces': {
    // The workspace runs as its owner, with their git SSH key: making one for someone acts as them.
    scope: 'organization',
    expect: all(403, { owner: 200, orgAdmin: 200, ...BLIND }),
    target: reused,
    call: (world) => ({ body: { name: world.unique('ws'), template_id: world.templateId } }),
  },
  'POST /api/v2/organizations/:organization/members/:user/workspaces': {
    scope: 'organization',
    expect: all(403, { owner: 200, orgAdmin: 200, ...BLIND }),
    target: reused,
    call: (world) => ({ body: { name: world.unique('ws'), template_id: world.templateId } }),
  },
  'POST /api/v2/organizations/:organization/members/:user': {
    // Joining an organization changes nothing of the user's and lets nobody act as them. The target
    // joins anew, so holds only its site roles: organization roles come with a membership.
    scope: 'unranked',
    expect: all(403, { owner: 200, userAdmin: 200, orgAdmin: 200, orgUserAdmin: 200, orgCustom: 200 }),
    target: (world, target) => world.fresh(target, { member: false }),
    call: () => ({}),
  },
  'DELETE /api/v2/organizations/:organization/members/:user': {
    scope: 'organization',
    // Plain members see only their own membership.
    expect: all(403, { owner: 204, userAdmin: 204, orgAdmin: 204, orgUserAdmin: 204, orgCustom: 204, member: 404 }),
    target: fresh,
    call: () => ({}),
  },
  'PUT /api/v2/organizations/:organization/members/:user/roles': {
    scope: 'organization',
    // The target's own roles again, as for site roles; those who may assign organization roles get that far.
    expect: all(403, { owner: 200, userAdmin: 200, orgAdmin: 200, orgUserAdmin: 200, orgCustom: 200, member: 404 }),
    target: reused,
    call: () => ({ body: 'org-roles' }),
  },
};

/** The path of a call: the route's own, with `:user` and `:organization` filled in. */
function pathOf(key: string, world: World, target: TargetUser, call: Call): string {
  return key
    .slice(key.indexOf(' ') + 1)
    .replace(':organization', world.defaultOrgId)
    .replace(':user', target.id)
    .replace(':keyid', call.keyId ?? '');
}

function bodyOf(call: Call, target: Target): unknown {
  if (call.body === 'site-roles') return { roles: ROLES[target].site };
  if (call.body === 'org-roles') return { roles: ROLES[target].org };
  return call.body;
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

async function send(world: World, method: string, path: string, token: string, body: unknown) {
  const headers: Record<string, string> = { 'service-session-token': token };
  const withBody = body !== undefined || METHODS_WITH_BODY.has(method);
  if (withBody) headers['content-type'] = 'application/json';
  const response = await fetch(`${world.test.url}${path}`, { method, headers, ...(withBody ? { body: JSON.stringify(body ?? {}) } : {}) });
  return { status: response.status, text: await response.text() };
}

/** Everything a user-changing call could change about the target, read from the database itself. */
async function stateOf(world: World, userId: string): Promise<unknown> {
  const db = world.test.daemon.store.db;
  const [user, memberships, gitKey, keys, workspaces, settings] = await Promise.all([
    db
      .selectFrom('users')
      .select(['username', 'name', 'email', 'status', 'rbac_roles', 'login_type', 'hashed_password', 'deleted', 'theme_preference'])
      .where('id', '=', userId)
      .executeTakeFirst(),
    db
      .selectFrom('organization_members')
      .select(['organization_id', 'roles'])
      .where('user_id', '=', userId)
      .orderBy('organization_id')
      .execute(),
    db.selectFrom('git_ssh_keys').select(['public_key']).where('user_id', '=', userId).executeTakeFirst(),
    db.selectFrom('api_keys').select(['id']).where('user_id', '=', userId).orderBy('id').execute(),
    db.selectFrom('workspaces').select(['id']).where('owner_id', '=', userId).orderBy('id').execute(),
    db.selectFrom('user_configs').select(['key', 'value']).where('user_id', '=', userId).orderBy('key').execute(),
  ]);
  return { user, memberships, gitKey: gitKey ?? null, keys, workspaces, settings };
}

async function buildWorld(test: TestDaemon): Promise<World> {
  const owner = await createOwner(test);
  const defaultOrgId = test.daemon.identity.defaultOrganization.id;
  const db = test.daemon.store.db;
  // One hash for every user made here: hashing is slow on purpose, and these all share a password.
  const hashed = await hashPassword(STRONG_PASSWORD);
  let counter = 0;
  const unique = (prefix: string) => `${prefix}-${++counter}`;
  const insertUser = async (kind: Actor | Target, options: { readonly member?: boolean } = {}): Promise<TargetUser> => {
    const now = test.clock.now().toISOString();
    const id = newId();
    const username = unique(kind.toLowerCase());
    await db
      .insertInto('users')
      .values({
        id,
        email: `${username}@example.com`,
        username,
        name: '',
        avatar_url: '',
        hashed_password: hashed,
        login_type: 'password',
        status: 'active',
        rbac_roles: JSON.stringify(ROLES[kind].site),
        theme_preference: '',
        quiet_hours_schedule: '',
        hashed_one_time_passcode: null,
        one_time_passcode_expires_at: null,
        deleted: 0,
        created_at: now,
        updated_at: now,
        last_seen_at: now,
      })
      .execute();
    if (options.member !== false) {
      const roles = JSON.stringify(ROLES[kind].org);
      await db
        .insertInto('organization_members')
        .values({ user_id: id, organization_id: defaultOrgId, roles, created_at: now, updated_at: now })
        .execute();
    }
    return { id, username };
  };

  await owner.createCustomRole(defaultOrgId, {
    name: CUSTOM_ROLE,
    organization_permissions: [
      ...['create', 'read', 'update', 'delete'].map((action) => ({ negate: false, resource_type: 'organization_member', action })),
      ...['assign', 'unassign', 'read'].map((action) => ({ negate: false, resource_type: 'assign_org_role', action })),
    ],
  });
  const tokens: Partial<Record<Actor, string>> = {};
  for (const actor of ACTORS) {
    const user = await insertUser(actor);
    tokens[actor] = (await test.anonymous.login(`${user.username}@example.com`, STRONG_PASSWORD)).session_token;
  }
  const targets: Partial<Record<Target, TargetUser>> = {};
  for (const target of TARGETS) targets[target] = await insertUser(target);

  const file = await owner.uploadFile(await createTar({ 'echo.json': '{}' }));
  const version = await owner.createTemplateVersion(defaultOrgId, { file_id: file.id });
  await owner.followTemplateVersionLogs(version.id, () => undefined);
  const template = await owner.createTemplate(defaultOrgId, { name: 'hierarchy', template_version_id: version.id });

  return {
    test,
    owner,
    defaultOrgId,
    templateId: template.id,
    tokens: tokens as Record<Actor, string>,
    targets: targets as Record<Target, TargetUser>,
    fresh: (target, options) => insertUser(target, options),
    unique,
  };
}

describe('nobody acts on a user above them', () => {
  let test: TestDaemon;
  let world: World;
  before(async () => {
    test = await startTestDaemon({
      flags: {
        rateLimitDisableAll: 'true',
        provisionerDaemons: '1',
        // Conversions to OIDC can start; no provider is ever asked.
        oidcIssuerUrl: 'http://127.0.0.1:9/',
        oidcClientId: 'cove',
      },
    });
    world = await buildWorld(test);
  });
  after(async () => test.close());

  it('has a case for every route that changes a user, from the route table', () => {
    const served = test.daemon.app.routeList
      .filter((route) => route.method !== 'GET' && /\/:user(\/|$)/.test(route.url))
      .map((route) => `${route.method} ${route.url}`);
    const missing = served.filter((key) => !(key in CASES));
    assert.deepEqual(missing, [], `user-changing routes without a hierarchy case:\n${missing.join('\n')}`);
    const stale = Object.keys(CASES).filter((key) => !served.includes(key));
    assert.deepEqual(stale, [], `hierarchy cases for routes that are not served:\n${stale.join('\n')}`);
  });

  it('a user admin cannot take over the owner through their password', async () => {
    const target = await world.fresh('owner');
    const admin = world.owner.withToken(world.tokens.userAdmin);
    const refused = await expectApiError(admin.changePassword(target.id, { password: 'Taken-Over-Passphrase-5' }), 403);
    assert.equal(refused.message, 'You cannot change a user who holds roles you cannot assign: owner');
    await expectApiError(test.anonymous.login(`${target.username}@example.com`, 'Taken-Over-Passphrase-5'), 401);
    await test.anonymous.login(`${target.username}@example.com`, STRONG_PASSWORD);
  });

  it('lets everyone act on themselves as before, whatever roles they hold', async () => {
    for (const actor of ACTORS) {
      const self = world.owner.withToken(world.tokens[actor]);
      const me = await self.user('me');
      assert.equal((await self.updateProfile('me', { username: me.username, name: `Self ${actor}` })).name, `Self ${actor}`, actor);
      await self.regenerateGitSshKey('me');
      await self.createToken({ token_name: world.unique('own') });
    }
  });

  it('answers every actor on every target as their rank allows, and a refusal changes nothing', async () => {
    const mismatches: string[] = [];
    for (const [key, route] of Object.entries(CASES)) {
      const method = key.slice(0, key.indexOf(' '));
      for (const actor of ACTORS) {
        for (const targetKind of TARGETS) {
          const target = await route.target(world, targetKind);
          const call = await route.call(world, target);
          const base = route.expect[actor];
          const ranked = outranks(actor, targetKind, route.scope);
          const wanted = route.exception?.(actor, targetKind) ?? (base < 300 && !ranked ? 403 : base);
          const before = await stateOf(world, target.id);
          const answer = await send(world, method, pathOf(key, world, target, call), world.tokens[actor], bodyOf(call, targetKind));
          const where = `${key} by ${actor} on ${targetKind}`;
          if (answer.status !== wanted) mismatches.push(`${where}: wanted ${wanted}, got ${answer.status} ${answer.text.slice(0, 120)}`);
          if (answer.status >= 400) {
            const after = await stateOf(world, target.id);
            if (JSON.stringify(after) !== JSON.stringify(before))
              mismatches.push(`${where}: refused with ${answer.status}, yet the target changed`);
            if (base < 300 && !ranked && wanted === 403 && !answer.text.includes('roles you cannot assign')) {
              mismatches.push(`${where}: refused without saying why: ${answer.text.slice(0, 120)}`);
            }
          }
        }
      }
    }
    assert.deepEqual(mismatches, [], `\n${mismatches.join('\n')}`);
  });
});
