import { Type, type Static } from '@sinclair/typebox';
import { DateTime } from './common.js';
import { User } from './users.js';

/** What an audited request did. */
export const AuditAction = Type.Union(
  [
    'close',
    'connect',
    'create',
    'delete',
    'disconnect',
    'login',
    'logout',
    'open',
    'register',
    'request_password_reset',
    'start',
    'stop',
    'write',
  ].map((action) => Type.Literal(action)),
);
export type AuditAction =
  | 'close'
  | 'connect'
  | 'create'
  | 'delete'
  | 'disconnect'
  | 'login'
  | 'logout'
  | 'open'
  | 'register'
  | 'request_password_reset'
  | 'start'
  | 'stop'
  | 'write';

/** The kinds of resource the audit log names (the audit log's own list, not the RBAC resource types). */
export const AUDIT_RESOURCE_TYPES = [
  'api_key',
  'convert_login',
  'custom_role',
  'git_ssh_key',
  'group',
  'health_settings',
  'idp_sync_settings_group',
  'idp_sync_settings_organization',
  'idp_sync_settings_role',
  'license',
  'notification_template',
  'notifications_settings',
  'oauth2_provider_app',
  'oauth2_provider_app_secret',
  'organization',
  'organization_member',
  'prebuilds_settings',
  'task',
  'template',
  'template_version',
  'user',
  'workspace',
  'workspace_agent',
  'workspace_app',
  'workspace_build',
  'workspace_proxy',
] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];
export const AuditResourceType = Type.Union(AUDIT_RESOURCE_TYPES.map((type) => Type.Literal(type)));

/** One changed field: its old and new values, left out (and `secret` true) for a secret. */
export const AuditDiffField = Type.Object({
  old: Type.Optional(Type.Unknown()),
  new: Type.Optional(Type.Unknown()),
  secret: Type.Boolean(),
});
export type AuditDiffField = Static<typeof AuditDiffField>;

/** Field name -> its change. */
export const AuditDiff = Type.Record(Type.String(), AuditDiffField);
export type AuditDiff = Static<typeof AuditDiff>;

/** An organization as other resources name it. */
export const MinimalOrganization = Type.Object({
  id: Type.String(),
  name: Type.String(),
  display_name: Type.String(),
  icon: Type.String(),
});
export type MinimalOrganization = Static<typeof MinimalOrganization>;

/**
 * One entry of the audit log. `user` is null for an unknown caller (a failed sign-in of a name
 * that does not exist) and for the deployment's own work; `organization_id` is the zero UUID
 * outside any organization, where `organization` is left out.
 */
export const AuditLog = Type.Object({
  id: Type.String(),
  request_id: Type.String(),
  time: DateTime,
  ip: Type.String(),
  user_agent: Type.String(),
  resource_type: AuditResourceType,
  resource_id: Type.String(),
  resource_target: Type.String(),
  resource_icon: Type.String(),
  action: AuditAction,
  diff: AuditDiff,
  status_code: Type.Integer(),
  additional_fields: Type.Record(Type.String(), Type.String()),
  description: Type.String(),
  resource_link: Type.String(),
  is_deleted: Type.Boolean(),
  organization_id: Type.String(),
  organization: Type.Optional(MinimalOrganization),
  user: Type.Union([User, Type.Null()]),
});
export type AuditLog = Static<typeof AuditLog>;

/** `GET /audit`: one page of entries, newest first, and how many match in all. */
export const AuditLogResponse = Type.Object({ audit_logs: Type.Array(AuditLog), count: Type.Integer() });
export type AuditLogResponse = Static<typeof AuditLogResponse>;

/**
 * `GET /audit` query: `q` is the search (`resource_type:template action:delete username:alice
 * email: resource_id: date_from:2026-01-02 date_to: build_reason:autostart`, words ANDed).
 */
export interface AuditLogsRequest {
  readonly q?: string;
  readonly limit?: number;
  readonly offset?: number;
}
