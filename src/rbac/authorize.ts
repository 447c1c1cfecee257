/**
 * The decision procedure. Three levels (site, org, user) each give -1 (some matching permission
 * is negative), +1 (only positive matches) or 0 (nothing matches); a higher level's non-zero
 * answer is final. Object ACLs are a second, independent path to "allow", and the API key scope
 * must allow as well.
 */
import { ACTIONS, type Action, type ResourceType } from './policy.js';
import type { RbacObject } from './object.js';
import type { Permission, Role } from './role.js';
import type { ScopeName, Subject } from './subject.js';

type Level = -1 | 0 | 1;

/** Bit masks of the actions granted and denied for one resource type key (a type or `*`). */
interface Masks {
  pos: number;
  neg: number;
}

const ACTION_BITS: ReadonlyMap<string, number> = new Map(ACTIONS.map((action, i) => [action, 1 << i]));
const WILDCARD_BIT = 1 << ACTIONS.length;

// Keyed by list identity: built-in lists are shared module constants, so each is compiled once per
// process; lists of custom roles are compiled once per loaded role.
const compiledLists = new WeakMap<readonly Permission[], ReadonlyMap<string, Masks>>();

function compile(perms: readonly Permission[]): ReadonlyMap<string, Masks> {
  const byType = new Map<string, Masks>();
  for (const p of perms) {
    const bit = p.action === '*' ? WILDCARD_BIT : (ACTION_BITS.get(p.action) ?? 0);
    let masks = byType.get(p.resource_type);
    if (!masks) {
      masks = { pos: 0, neg: 0 };
      byType.set(p.resource_type, masks);
    }
    if (p.negate) masks.neg |= bit;
    else masks.pos |= bit;
  }
  return byType;
}

function compiled(perms: readonly Permission[]): ReadonlyMap<string, Masks> {
  let c = compiledLists.get(perms);
  if (!c) {
    c = compile(perms);
    compiledLists.set(perms, c);
  }
  return c;
}

/** The bit of `action` plus the wildcard bit: a permission matches when it has either. */
function queryBits(action: string): number {
  return (ACTION_BITS.get(action) ?? 0) | WILDCARD_BIT;
}

function listLevel(perms: readonly Permission[], type: string, query: number): Level {
  if (perms.length === 0) return 0;
  const c = compiled(perms);
  const exact = c.get(type);
  const any = c.get('*');
  const neg = (exact ? exact.neg : 0) | (any ? any.neg : 0);
  if ((neg & query) !== 0) return -1;
  const pos = (exact ? exact.pos : 0) | (any ? any.pos : 0);
  return (pos & query) !== 0 ? 1 : 0;
}

function siteLevel(roles: readonly Role[], type: string, query: number): Level {
  let result: Level = 0;
  for (const role of roles) {
    const v = listLevel(role.site, type, query);
    if (v === -1) return -1;
    if (v === 1) result = 1;
  }
  return result;
}

function userLevel(roles: readonly Role[], type: string, query: number): Level {
  let result: Level = 0;
  for (const role of roles) {
    const v = listLevel(role.user, type, query);
    if (v === -1) return -1;
    if (v === 1) result = 1;
  }
  return result;
}

/** The org level for `orgId`, from the roles scoped to it; 0 when the subject is not a member. */
function orgLevel(roles: readonly Role[], orgId: string, type: string, query: number): Level {
  let result: Level = 0;
  for (const role of roles) {
    if (role.organization_id !== orgId) continue;
    const v = listLevel(role.org, type, query);
    if (v === -1) return -1;
    if (v === 1) result = 1;
  }
  return result;
}

function isMember(roles: readonly Role[], orgId: string): boolean {
  for (const role of roles) if (role.organization_id === orgId) return true;
  return false;
}

function hasAnyMembership(roles: readonly Role[]): boolean {
  for (const role of roles) if (role.organization_id !== '') return true;
  return false;
}

/** True when the role at `index` is the first one scoped to its organization (dedupes orgs without allocating). */
function firstOfItsOrg(roles: readonly Role[], index: number): boolean {
  const orgId = roles[index]?.organization_id ?? '';
  if (orgId === '') return false;
  for (let i = 0; i < index; i++) if (roles[i]?.organization_id === orgId) return false;
  return true;
}

/**
 * The org level for `any_org`: the best level over the member orgs. This makes an `any_org`
 * question answer "is there a member org in which the same object would be allowed?".
 */
function anyOrgLevel(roles: readonly Role[], type: string, query: number): Level {
  let best: Level | undefined;
  for (let i = 0; i < roles.length; i++) {
    if (!firstOfItsOrg(roles, i)) continue;
    const v = orgLevel(roles, roles[i]?.organization_id ?? '', type, query);
    if (v === 1) return 1;
    if (best === undefined || v > best) best = v;
  }
  return best ?? 0;
}

/** Whether the API key scope permits `action` on `type`. */
export function scopeAllows(scope: ScopeName, action: string, type: string): boolean {
  return scope === 'all' || (action === 'application_connect' && type === 'workspace');
}

function roleAllows(subject: Subject, query: number, object: RbacObject, orgId: string, anyOrg: boolean): boolean {
  const roles = subject.roles;
  const type = object.type;
  const site = siteLevel(roles, type, query);
  if (site !== 0) return site === 1;

  let org: Level = 0;
  // Not being a member of the object's org acts as an implicit deny for user-level permissions.
  let orgOk = true;
  if (anyOrg) {
    orgOk = hasAnyMembership(roles);
    org = anyOrgLevel(roles, type, query);
  } else if (orgId !== '') {
    orgOk = isMember(roles, orgId);
    if (orgOk) org = orgLevel(roles, orgId, type, query);
  }
  if (org !== 0) return org === 1;
  if (!orgOk) return false;

  const owner = object.owner_id;
  if (owner === undefined || owner === '' || owner !== subject.id) return false;
  return userLevel(roles, type, query) === 1;
}

function listGrants(acl: Readonly<Record<string, readonly string[]>>, key: string, action: string): boolean {
  if (!Object.hasOwn(acl, key)) return false;
  const actions = acl[key];
  return actions !== undefined && (actions.includes(action) || actions.includes('*'));
}

function aclAllows(subject: Subject, action: string, object: RbacObject, orgId: string, anyOrg: boolean): boolean {
  const users = object.acl_user_list;
  if (users && listGrants(users, subject.id, action)) return true;
  const groups = object.acl_group_list;
  if (!groups) return false;
  // Group grants (the org's "Everyone" group included) only reach members of the object's org.
  const member = anyOrg ? hasAnyMembership(subject.roles) : orgId !== '' && isMember(subject.roles, orgId);
  if (!member) return false;
  if (orgId !== '' && listGrants(groups, orgId, action)) return true;
  for (const group of subject.groups) if (listGrants(groups, group, action)) return true;
  return false;
}

/**
 * Whether `subject` may perform `action` on `object`: (roles allow OR the object's ACLs allow)
 * AND the API key scope allows. An object with both `any_org` and an `org_id` is malformed and
 * denied. Callers taking types and actions from outside (`/authcheck`) should check them with
 * `isResourceType` / `isAction` first: a wildcard permission matches any string.
 */
export function authorize(subject: Subject, action: Action, object: RbacObject): boolean {
  if (!scopeAllows(subject.scope, action, object.type)) return false;
  const orgId = object.org_id ?? '';
  const anyOrg = object.any_org === true;
  if (anyOrg && orgId !== '') return false;
  return roleAllows(subject, queryBits(action), object, orgId, anyOrg) || aclAllows(subject, action, object, orgId, anyOrg);
}

/**
 * Which rows of one resource type a subject may see, in a form a SQL `WHERE` can use: a row is
 * allowed when `all`, or its org is in `orgIds`, or it is owned by `ownerId` and its org is in
 * `ownerOrgIds` (or it has no org and `ownerNoOrg`).
 */
export interface ListFilter {
  /** Every row of that type is allowed. */
  readonly all: boolean;
  /** Rows whose org is one of these are allowed. */
  readonly orgIds: readonly string[];
  /** Rows owned by this id are allowed when their org is in `ownerOrgIds`, or they have no org and `ownerNoOrg`. */
  readonly ownerId: string | null;
  readonly ownerOrgIds: readonly string[];
  readonly ownerNoOrg: boolean;
}

const NOTHING: ListFilter = Object.freeze({ all: false, orgIds: [], ownerId: null, ownerOrgIds: [], ownerNoOrg: false });
const EVERYTHING: ListFilter = Object.freeze({ all: true, orgIds: [], ownerId: null, ownerOrgIds: [], ownerNoOrg: false });

/**
 * The filter equivalent to `authorize(subject, action, row)` for every row of `type` that has no
 * ACLs and no `any_org`. ACLs are ignored: rows shared through an ACL are not included, so lists
 * of ACL-bearing types (workspaces, templates) must add the ACL condition themselves.
 */
export function listFilter(subject: Subject, action: Action, type: ResourceType): ListFilter {
  if (!scopeAllows(subject.scope, action, type)) return NOTHING;
  const roles = subject.roles;
  const query = queryBits(action);
  const site = siteLevel(roles, type, query);
  if (site === 1) return EVERYTHING;
  if (site === -1) return NOTHING;

  const orgIds: string[] = [];
  const undecidedOrgIds: string[] = [];
  for (let i = 0; i < roles.length; i++) {
    if (!firstOfItsOrg(roles, i)) continue;
    const orgId = roles[i]?.organization_id ?? '';
    const v = orgLevel(roles, orgId, type, query);
    if (v === 1) orgIds.push(orgId);
    else if (v === 0) undecidedOrgIds.push(orgId);
  }
  if (subject.id === '' || userLevel(roles, type, query) !== 1) {
    return { all: false, orgIds, ownerId: null, ownerOrgIds: [], ownerNoOrg: false };
  }
  return { all: false, orgIds, ownerId: subject.id, ownerOrgIds: undecidedOrgIds, ownerNoOrg: true };
}

/** Whether `row` passes `filter`; the in-memory twin of the SQL condition. Empty strings count as "no org". */
export function matchesFilter(filter: ListFilter, row: { readonly owner_id?: string | null; readonly org_id?: string | null }): boolean {
  if (filter.all) return true;
  const orgId = row.org_id ?? '';
  if (orgId !== '' && filter.orgIds.includes(orgId)) return true;
  if (filter.ownerId === null || row.owner_id !== filter.ownerId) return false;
  return orgId === '' ? filter.ownerNoOrg : filter.ownerOrgIds.includes(orgId);
}
