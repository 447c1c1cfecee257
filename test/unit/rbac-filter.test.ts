import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ACTIONS,
  ORG_ROLE_NAMES,
  RESOURCE_TYPES,
  allow,
  authorize,
  deny,
  listFilter,
  matchesFilter,
  orgScoped,
  userSubject,
  type RbacObject,
  type Role,
  type ScopeName,
  type Subject,
} from '../../src/rbac/index.js';

const ORGS = ['aaaaaaaa-0000-4000-8000-000000000001', 'bbbbbbbb-0000-4000-8000-000000000002', 'cccccccc-0000-4000-8000-000000000003'];
const ME = '11111111-0000-4000-8000-000000000001';
const OTHER = '22222222-0000-4000-8000-000000000002';
const ASSIGNABLE_SITE_ROLES = ['owner', 'template-admin', 'user-admin', 'auditor'];

/** Deterministic so that a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function role(name: string, orgId: string, parts: Partial<Pick<Role, 'site' | 'org' | 'user'>>): Role {
  return { name, display_name: name, organization_id: orgId, site: [], org: [], user: [], ...parts };
}

/** Custom roles mixing positive and negative permissions at every level. */
const CUSTOM_SITE_ROLES: readonly Role[] = [
  role('no-audit', '', { site: deny('audit_log', ['*']) }),
  role('ws-reader', '', { site: allow('workspace', ['read', 'stop']) }),
  role('no-own-keys', '', { user: deny('api_key', ['delete', 'update']) }),
  role('locked', '', { site: deny('*', ['update']) }),
];

function customOrgRoles(orgId: string): Role[] {
  return [
    role('ws-operator', orgId, { org: allow('workspace', ['read', 'start', 'stop']) }),
    role('no-ws-update', orgId, { org: deny('workspace', ['update', 'ssh']) }),
    role('read-only', orgId, { org: [...allow('*', ['read']), ...deny('*', ['create', 'delete'])] }),
    role('member-viewer', orgId, { org: allow('organization_member', ['read']) }),
  ];
}

const CUSTOM_ROLES: readonly Role[] = [...CUSTOM_SITE_ROLES, ...ORGS.flatMap(customOrgRoles)];
const CUSTOM_ORG_NAMES = customOrgRoles('').map((r) => r.name);

function pickSome<T>(rand: () => number, items: readonly T[], p: number): T[] {
  return items.filter(() => rand() < p);
}

function randomSubject(rand: () => number): Subject {
  const siteRoleNames = [
    ...pickSome(rand, ASSIGNABLE_SITE_ROLES, 0.2),
    ...pickSome(
      rand,
      CUSTOM_SITE_ROLES.map((r) => r.name),
      0.2,
    ),
  ];
  const orgRoles: Record<string, string[]> = {};
  for (const orgId of ORGS) {
    if (rand() < 0.35) continue;
    orgRoles[orgId] = [...pickSome(rand, ORG_ROLE_NAMES, 0.2), ...pickSome(rand, CUSTOM_ORG_NAMES, 0.2)];
  }
  const scope: ScopeName = rand() < 0.1 ? 'application_connect' : 'all';
  return userSubject({ id: ME, siteRoleNames, orgRoles, customRoles: CUSTOM_ROLES, scope, disableOwnerWorkspaceExec: rand() < 0.3 });
}

/** Every owner/org combination: mine or someone else's or unowned, in each org (member or not) or none. */
function objectsOf(type: (typeof RESOURCE_TYPES)[number]): RbacObject[] {
  const objects: RbacObject[] = [];
  for (const owner of [ME, OTHER, undefined]) {
    for (const org of [...ORGS, undefined]) {
      objects.push(org === undefined ? (owner === undefined ? { type } : { type, owner_id: owner }) : orgScoped(type, org, owner));
    }
  }
  return objects;
}

const OBJECTS = RESOURCE_TYPES.map((type) => [type, objectsOf(type)] as const);

describe('listFilter', () => {
  it('matches authorize for every type, action and object, over many generated subjects', () => {
    const rand = prng(20240611);
    let checks = 0;
    let allowed = 0;
    for (let n = 0; n < 250; n++) {
      const subject = randomSubject(rand);
      for (const [type, objects] of OBJECTS) {
        for (const action of ACTIONS) {
          const filter = listFilter(subject, action, type);
          for (const object of objects) {
            const expected = authorize(subject, action, object);
            const row = { owner_id: object.owner_id ?? null, org_id: object.org_id ?? null };
            if (matchesFilter(filter, row) !== expected) {
              assert.fail(
                `mismatch for roles ${subject.roles.map((r) => `${r.name}@${r.organization_id}`).join(',')} scope ${subject.scope}: ` +
                  `${action} on ${JSON.stringify(object)}: authorize=${expected}, filter=${JSON.stringify(filter)}`,
              );
            }
            checks++;
            if (expected) allowed++;
          }
        }
      }
    }
    // Guard against a generator that only ever produces denials (or only grants).
    assert.ok(allowed > checks / 50 && allowed < checks / 2, `allowed ${allowed} of ${checks}`);
  });

  it('is all for site grants, org ids for org grants, owner-limited for user grants', () => {
    const [orgA, orgB] = ORGS as [string, string, string];
    const owner = userSubject({ id: ME, siteRoleNames: ['owner'], orgRoles: {} });
    assert.equal(listFilter(owner, 'read', 'workspace').all, true);

    const admin = userSubject({ id: ME, siteRoleNames: [], orgRoles: { [orgA]: ['organization-admin'], [orgB]: [] } });
    assert.deepEqual(listFilter(admin, 'read', 'workspace'), {
      all: false,
      orgIds: [orgA],
      ownerId: ME,
      ownerOrgIds: [orgB],
      ownerNoOrg: true,
    });

    const member = userSubject({ id: ME, siteRoleNames: [], orgRoles: { [orgA]: [] } });
    const members = listFilter(member, 'read', 'organization_member');
    assert.equal(matchesFilter(members, { owner_id: ME, org_id: orgA }), true);
    assert.equal(matchesFilter(members, { owner_id: OTHER, org_id: orgA }), false);
    assert.equal(matchesFilter(members, { owner_id: ME, org_id: orgB }), false);
  });

  it('is empty when the scope forbids the action or a site-level negative applies', () => {
    const scoped = userSubject({ id: ME, siteRoleNames: ['owner'], orgRoles: {}, scope: 'application_connect' });
    assert.deepEqual(listFilter(scoped, 'read', 'workspace'), {
      all: false,
      orgIds: [],
      ownerId: null,
      ownerOrgIds: [],
      ownerNoOrg: false,
    });
    assert.equal(listFilter(scoped, 'application_connect', 'workspace').all, true);

    const locked = userSubject({
      id: ME,
      siteRoleNames: ['locked'],
      orgRoles: { [ORGS[0] ?? '']: ['organization-admin'] },
      customRoles: CUSTOM_ROLES,
    });
    assert.deepEqual(listFilter(locked, 'update', 'template'), {
      all: false,
      orgIds: [],
      ownerId: null,
      ownerOrgIds: [],
      ownerNoOrg: false,
    });
  });
});
