import { EVERYONE_GROUP_NAME } from '../lib/everyone-group.js';
import { ConflictError, forbiddenProblem, HttpProblem, NotAuthorizedError, NotFoundError } from '../lib/errors.js';
import { isUuid, newId } from '../lib/random.js';
import { groupRbac, type AuthorizedStore, type GroupChanges, type GroupMembers } from '../store/authorized-store.js';
import type { GroupWithOrganization, OrganizationRow, UserRow } from '../store/rows.js';
import { ruleDetail } from './names.js';

const GROUP_NAME = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/;

/** What is wrong with a group name, or undefined: the reference's rule, longer than other names so that provider groups fit. */
export function groupNameProblem(name: string): string | undefined {
  if (name.length > 255) return 'must be <= 255 characters';
  // The dashboard's own pages sit at these paths.
  if (name === 'new' || name === 'create') return `cannot use "${name}" as a name`;
  if (!GROUP_NAME.test(name)) return 'must be alphanumeric with hyphens';
  return undefined;
}

function checkName(name: string): void {
  if (name === EVERYONE_GROUP_NAME) {
    throw new HttpProblem(400, 'Invalid group name.', {
      validations: [{ field: 'name', detail: `"${name}" is a reserved group name` }],
    });
  }
  const problem = name === '' ? 'is required' : groupNameProblem(name);
  if (problem) {
    throw new HttpProblem(400, 'Validation failed.', {
      validations: [{ field: 'name', detail: `${ruleDetail('group_name', name)}: ${problem}` }],
    });
  }
}

function checkDisplayName(displayName: string): void {
  if (displayName.length > 64 || displayName !== displayName.trim()) {
    throw new HttpProblem(400, 'Validation failed.', {
      validations: [{ field: 'display_name', detail: ruleDetail('group_display_name', displayName) }],
    });
  }
}

function duplicateName(name: string): HttpProblem {
  return new HttpProblem(409, `A group named "${name}" already exists.`, {
    validations: [{ field: 'name', detail: 'Group names must be unique' }],
  });
}

/** Whether a group is its organization's "Everyone" group. */
export function isEveryoneGroup(group: { readonly id: string; readonly organization_id: string }): boolean {
  return group.id === group.organization_id;
}

/** Creates a group of the organization, made by hand. */
export async function createGroup(
  store: AuthorizedStore,
  organization: OrganizationRow,
  body: { name: string; display_name?: string | undefined; avatar_url?: string | undefined; quota_allowance?: number | undefined },
  now: Date,
): Promise<GroupWithOrganization> {
  checkName(body.name);
  const displayName = body.display_name ?? '';
  if (displayName !== '') checkDisplayName(displayName);
  try {
    return await store.groups.create({
      id: newId(),
      organization_id: organization.id,
      name: body.name,
      display_name: displayName,
      avatar_url: body.avatar_url ?? '',
      quota_allowance: body.quota_allowance ?? 0,
      source: 'user',
      created_at: now.toISOString(),
    });
  } catch (error) {
    if (error instanceof ConflictError) throw duplicateName(body.name);
    if (error instanceof NotAuthorizedError) throw forbiddenProblem();
    throw error;
  }
}

/** The body of a group edit, as the reference's PATCH takes it. */
export interface GroupEdit {
  readonly name?: string | undefined;
  readonly display_name?: string | null | undefined;
  readonly avatar_url?: string | null | undefined;
  readonly quota_allowance?: number | null | undefined;
  readonly add_users?: readonly string[] | undefined;
  readonly remove_users?: readonly string[] | undefined;
}

/**
 * Edits a group. The "Everyone" group keeps its name, its (empty) display name and its members,
 * which are its organization's; only organization members may join a group.
 */
export async function updateGroup(store: AuthorizedStore, group: GroupWithOrganization, body: GroupEdit): Promise<GroupWithOrganization> {
  if (!store.can('update', groupRbac(group))) throw forbiddenProblem();
  const everyone = isEveryoneGroup(group);
  const name = body.name === group.name ? '' : (body.name ?? '');
  if (everyone && name !== '') throw new HttpProblem(400, `Cannot rename the "${EVERYONE_GROUP_NAME}" group.`);
  if (everyone && body.display_name) throw new HttpProblem(400, `Cannot change the display name of the "${EVERYONE_GROUP_NAME}" group.`);
  const addUserIds = body.add_users ?? [];
  const removeUserIds = body.remove_users ?? [];
  if (everyone && addUserIds.length + removeUserIds.length > 0) {
    throw new HttpProblem(400, `Cannot add or remove users from the "${EVERYONE_GROUP_NAME}" group: its members are the organization's.`);
  }
  const fields: GroupChanges['fields'] = {};
  if (name !== '') {
    checkName(name);
    Object.assign(fields, { name });
  }
  if (body.display_name !== undefined && body.display_name !== null) {
    if (body.display_name !== '') checkDisplayName(body.display_name);
    Object.assign(fields, { display_name: body.display_name });
  }
  if (body.avatar_url !== undefined && body.avatar_url !== null) Object.assign(fields, { avatar_url: body.avatar_url });
  if (body.quota_allowance !== undefined && body.quota_allowance !== null) Object.assign(fields, { quota_allowance: body.quota_allowance });
  for (const id of [...addUserIds, ...removeUserIds]) {
    if (!isUuid(id)) throw new HttpProblem(400, `ID "${id}" must be a valid user UUID.`);
  }
  const inOrganization = await store.groups.organizationMembersAmong(group, addUserIds);
  const outsider = addUserIds.find((id) => !inOrganization.has(id));
  if (outsider !== undefined) {
    throw new HttpProblem(
      400,
      `User "${outsider}" must be a member of organization "${group.organization_name}" to join one of its groups.`,
    );
  }
  try {
    return await store.groups.update(group.id, { fields, addUserIds, removeUserIds });
  } catch (error) {
    if (error instanceof ConflictError) throw duplicateName(name);
    throw error;
  }
}

/** Deletes a group; the "Everyone" group cannot be. */
export async function deleteGroup(store: AuthorizedStore, group: GroupWithOrganization): Promise<void> {
  if (!store.can('delete', groupRbac(group))) throw forbiddenProblem();
  if (isEveryoneGroup(group)) throw new HttpProblem(400, `The "${EVERYONE_GROUP_NAME}" group is reserved and cannot be deleted.`);
  await store.groups.delete(group.id);
}

/** The query of `GET /groups` as the reference takes it. */
export interface GroupQuery {
  readonly organization?: string | undefined;
  readonly has_member?: string | undefined;
  readonly group_ids?: string | undefined;
  readonly limit?: number | undefined;
  readonly offset?: number | undefined;
}

/**
 * The groups the caller may read that match the query: `organization` by id or name, `has_member`
 * by user id or username (the "Everyone" groups of their organizations included), `group_ids` a
 * comma-separated list of ids. Values that name nothing are a 400 listing each.
 */
export async function listGroups(
  store: AuthorizedStore,
  query: GroupQuery,
  caller: UserRow,
  fixedOrganizationId?: string,
): Promise<GroupWithOrganization[]> {
  const validations: { field: string; detail: string }[] = [];
  let organizationId = fixedOrganizationId;
  if (organizationId === undefined && query.organization) {
    organizationId = await resolveOr(
      () => store.organizations.get(query.organization ?? '').then((row) => row.id),
      () =>
        validations.push({
          field: 'organization',
          detail: `Query param "organization" has invalid value: organization "${query.organization}" not found`,
        }),
    );
  }
  let hasMemberId: string | undefined;
  if (query.has_member) {
    hasMemberId = await resolveOr(
      () => store.users.get(query.has_member ?? '', caller).then((row) => row.id),
      () =>
        validations.push({
          field: 'has_member',
          detail: `Query param "has_member" has invalid value: user "${query.has_member}" not found`,
        }),
    );
  }
  const groupIds = (query.group_ids ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  for (const id of groupIds) {
    if (!isUuid(id)) validations.push({ field: 'group_ids', detail: `Query param "group_ids" has invalid value: "${id}" is not a UUID` });
  }
  if (validations.length > 0) throw new HttpProblem(400, 'Query parameters have invalid values.', { validations });
  return store.groups.list({ organizationId, hasMemberId, groupIds, limit: query.limit ?? 0, offset: query.offset ?? 0 });
}

/** The value `read` resolves to, or undefined after `otherwise` when it names nothing the caller can see. */
async function resolveOr(read: () => Promise<string>, otherwise: () => void): Promise<string | undefined> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof NotFoundError) && !(error instanceof NotAuthorizedError)) throw error;
    otherwise();
    return undefined;
  }
}

/** The members of each group, as the caller may see them. */
export function membersOf(store: AuthorizedStore, groups: readonly GroupWithOrganization[]): Promise<Map<string, GroupMembers>> {
  return store.groups.members(groups);
}
