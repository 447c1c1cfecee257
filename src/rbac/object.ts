import type { ResourceType } from './policy.js';

/**
 * What is being acted on, reduced to what the policy looks at. `owner_id` and `org_id` are
 * absent (or empty) for objects without an owner or organization.
 */
export interface RbacObject {
  readonly type: ResourceType;
  readonly id?: string;
  readonly owner_id?: string;
  readonly org_id?: string;
  /** "In some organization I belong to": for questions like "may I create a template anywhere?". Excludes `org_id`. */
  readonly any_org?: boolean;
  /** User id → actions (or `*`) granted to that user on this object. */
  readonly acl_user_list?: Readonly<Record<string, readonly string[]>>;
  /** Group id → actions (or `*`); the key equal to the org id is the implicit "Everyone" group. */
  readonly acl_group_list?: Readonly<Record<string, readonly string[]>>;
}

/** A user account: owned by itself, in no organization. */
export function userObject(id: string): RbacObject {
  return { type: 'user', id, owner_id: id };
}

/** An organization, which belongs to itself. */
export function organizationObject(id: string): RbacObject {
  return { type: 'organization', id, org_id: id };
}

/** A user's membership of an organization: owned by the user so that members can see their own row. */
export function orgMemberObject(userId: string, orgId: string): RbacObject {
  return { type: 'organization_member', id: userId, owner_id: userId, org_id: orgId };
}

/** An API key, owned by its user. */
export function apiKeyObject(ownerId: string, id?: string): RbacObject {
  return id === undefined ? { type: 'api_key', owner_id: ownerId } : { type: 'api_key', id, owner_id: ownerId };
}

/** A deployment-wide object without owner or organization (deployment_config, license, assign_role, ...). */
export function siteObject(type: ResourceType): RbacObject {
  return { type };
}

/** An object of `orgId`, optionally owned by `ownerId` (workspaces, templates, groups, assign_org_role, ...). */
export function orgScoped(type: ResourceType, orgId: string, ownerId?: string): RbacObject {
  return ownerId === undefined ? { type, org_id: orgId } : { type, org_id: orgId, owner_id: ownerId };
}

/** An object of `type` in any organization the subject belongs to (see {@link RbacObject.any_org}). */
export function anyOrgObject(type: ResourceType): RbacObject {
  return { type, any_org: true };
}

/** An uploaded file, owned by its uploader. */
export function fileObject(ownerId: string, id?: string): RbacObject {
  return id === undefined ? { type: 'file', owner_id: ownerId } : { type: 'file', id, owner_id: ownerId };
}

/** A template of an organization. */
export function templateObject(orgId: string, id?: string): RbacObject {
  return id === undefined ? { type: 'template', org_id: orgId } : { type: 'template', id, org_id: orgId };
}
