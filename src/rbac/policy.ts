/**
 * The vocabulary of the authorization model: actions, resource types and which actions each type
 * accepts. Values follow the API spec's enumerations; the per-type action lists follow the
 * reference system's policy table.
 */

/** Every action a permission may name, in the spec's order. `*` is not part of it (see {@link WILDCARD}). */
export const ACTIONS = [
  'application_connect',
  'assign',
  'create',
  'create_agent',
  'delete',
  'delete_agent',
  'read',
  'read_personal',
  'ssh',
  'unassign',
  'update',
  'update_personal',
  'use',
  'view_insights',
  'start',
  'stop',
] as const;

/** One of {@link ACTIONS}. */
export type Action = (typeof ACTIONS)[number];

/** The wildcard a permission may use in place of a resource type or an action. */
export const WILDCARD = '*';

/**
 * Every concrete resource type of the spec. The spec's list also contains `*`; it is kept apart
 * because an object always has a concrete type and only permissions may use the wildcard
 * (see {@link PERMISSION_RESOURCE_TYPES}).
 */
export const RESOURCE_TYPES = [
  'api_key',
  'assign_org_role',
  'assign_role',
  'audit_log',
  'crypto_key',
  'debug_info',
  'deployment_config',
  'deployment_stats',
  'file',
  'group',
  'group_member',
  'idpsync_settings',
  'inbox_notification',
  'license',
  'notification_message',
  'notification_preference',
  'notification_template',
  'oauth2_app',
  'oauth2_app_code_token',
  'oauth2_app_secret',
  'organization',
  'organization_member',
  'prebuilt_workspace',
  'provisioner_daemon',
  'provisioner_jobs',
  'replicas',
  'system',
  'tailnet_coordinator',
  'template',
  'user',
  'webpush_subscription',
  'workspace',
  'workspace_agent_devcontainers',
  'workspace_agent_resource_monitor',
  'workspace_dormant',
  'workspace_proxy',
] as const;

/** One of {@link RESOURCE_TYPES}. */
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** The spec's full resource type enumeration (wire schemas), wildcard first as in the spec. */
export const PERMISSION_RESOURCE_TYPES: readonly (ResourceType | '*')[] = [WILDCARD, ...RESOURCE_TYPES];

const CRUD = ['create', 'read', 'update', 'delete'] as const;

const WORKSPACE_ACTIONS = [
  'create',
  'read',
  'update',
  'delete',
  'start',
  'stop',
  'ssh',
  'application_connect',
  'create_agent',
  'delete_agent',
] as const;

/**
 * Valid actions per resource type. The wildcard type has no entry: it matches every type and only
 * the `*` action is meaningful with it.
 */
export const RESOURCE_ACTIONS: Readonly<Record<ResourceType, readonly Action[]>> = Object.freeze({
  api_key: CRUD,
  assign_org_role: ['assign', 'unassign', 'create', 'read', 'update', 'delete'],
  assign_role: ['assign', 'unassign', 'read'],
  audit_log: ['read', 'create'],
  crypto_key: CRUD,
  debug_info: ['read'],
  deployment_config: ['read', 'update'],
  deployment_stats: ['read'],
  file: ['create', 'read'],
  group: CRUD,
  group_member: ['read'],
  idpsync_settings: ['read', 'update'],
  inbox_notification: ['create', 'read', 'update'],
  license: ['create', 'read', 'delete'],
  notification_message: CRUD,
  notification_preference: ['read', 'update'],
  notification_template: ['read', 'update'],
  oauth2_app: CRUD,
  oauth2_app_code_token: ['create', 'read', 'delete'],
  oauth2_app_secret: CRUD,
  organization: CRUD,
  organization_member: CRUD,
  prebuilt_workspace: ['update', 'delete'],
  provisioner_daemon: CRUD,
  provisioner_jobs: ['create', 'read', 'update'],
  replicas: ['read'],
  system: CRUD,
  tailnet_coordinator: CRUD,
  template: ['create', 'read', 'update', 'delete', 'use', 'view_insights'],
  user: ['create', 'read', 'update', 'delete', 'read_personal', 'update_personal'],
  webpush_subscription: ['create', 'read', 'delete'],
  workspace: WORKSPACE_ACTIONS,
  workspace_agent_devcontainers: ['create'],
  workspace_agent_resource_monitor: ['create', 'read', 'update'],
  workspace_dormant: WORKSPACE_ACTIONS,
  workspace_proxy: CRUD,
});

const ACTION_SET: ReadonlySet<string> = new Set(ACTIONS);
const RESOURCE_TYPE_SET: ReadonlySet<string> = new Set(RESOURCE_TYPES);
const VALID_PAIRS: ReadonlySet<string> = new Set(
  RESOURCE_TYPES.flatMap((type) => RESOURCE_ACTIONS[type].map((action) => `${type}\u0000${action}`)),
);

/** True when `value` is one of {@link ACTIONS} (the wildcard is not an action). */
export function isAction(value: string): value is Action {
  return ACTION_SET.has(value);
}

/** True when `value` is one of {@link RESOURCE_TYPES} (the wildcard is not a resource type). */
export function isResourceType(value: string): value is ResourceType {
  return RESOURCE_TYPE_SET.has(value);
}

/** True when `action` is listed for `type` in {@link RESOURCE_ACTIONS}. */
export function isActionValidFor(type: string, action: string): boolean {
  return VALID_PAIRS.has(`${type}\u0000${action}`);
}

/** A permission as it arrives from outside, before its strings are known to be valid. */
export interface PermissionLike {
  readonly resource_type: string;
  readonly action: string;
}

/**
 * Why a permission is syntactically invalid, in the reference system's wording, or `undefined`
 * when it is valid. A wildcard resource type is accepted with any action (including `*`), a
 * concrete type with `*` or one of its listed actions.
 */
export function permissionError(p: PermissionLike): string | undefined {
  if (p.resource_type === WILDCARD) {
    return p.action === WILDCARD || isAction(p.action) ? undefined : `invalid action "${p.action}" for resource "${p.resource_type}"`;
  }
  if (!isResourceType(p.resource_type)) return `invalid resource type "${p.resource_type}"`;
  if (p.action === WILDCARD || isActionValidFor(p.resource_type, p.action)) return undefined;
  return `invalid action "${p.action}" for resource "${p.resource_type}"`;
}

/**
 * Whether a permission names a known resource type and an action valid for it. Wildcards are
 * always syntactically valid; whether they may be granted is a separate question (custom roles
 * refuse them).
 */
export function isValidPermission(p: PermissionLike): boolean {
  return permissionError(p) === undefined;
}
