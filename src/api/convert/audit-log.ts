import type { AuditLog, AuditLogResponse } from '../../sdk/wire/index.js';
import type { AuditLogPageRows } from '../../store/authorized-store.js';
import type { AuditLogWithOrganization, AuditedResourceState } from '../../store/rows.js';
import { toWireUser } from './user.js';

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** An action as the sentence of an entry says it. */
const ACTION_WORDS: Readonly<Record<string, string>> = {
  create: 'created',
  write: 'updated',
  delete: 'deleted',
  start: 'started',
  stop: 'stopped',
  login: 'logged in',
  logout: 'logged out',
  register: 'registered',
  request_password_reset: 'password reset requested',
  connect: 'connected',
  disconnect: 'disconnected',
  open: 'opened',
  close: 'closed',
};

/** A resource type as the sentence of an entry names it (a build is its workspace's). */
const RESOURCE_WORDS: Readonly<Record<string, string>> = {
  template: 'template',
  template_version: 'template version',
  user: 'user',
  workspace: 'workspace',
  workspace_build: 'workspace',
  git_ssh_key: 'git ssh key',
  api_key: 'token',
  group: 'group',
  license: 'license',
  convert_login: 'login type conversion',
  workspace_proxy: 'workspace proxy',
  organization: 'organization',
  health_settings: 'health_settings',
  notifications_settings: 'notifications_settings',
  prebuilds_settings: 'prebuilds_settings',
  oauth2_provider_app: 'oauth2 app',
  oauth2_provider_app_secret: 'oauth2 app secret',
  custom_role: 'custom role',
  organization_member: 'organization member',
  notification_template: 'notification template',
  idp_sync_settings_organization: 'settings',
  idp_sync_settings_group: 'settings',
  idp_sync_settings_role: 'settings',
  workspace_agent: 'workspace agent',
  workspace_app: 'workspace app',
  task: 'task',
};

/**
 * The sentence of an entry with `{user}` and `{target}` left for the client to fill, as the
 * reference's dashboard expects: "{user} deleted template {target}", "{user} logged in".
 */
export function auditDescription(row: Pick<AuditLogWithOrganization, 'action' | 'resource_type' | 'status_code'>): string {
  // Anyone who knows an e-mail address may ask for a reset: the user named did not do it.
  let text = row.action === 'request_password_reset' ? '' : '{user} ';
  if (row.status_code === 303) text += `was redirected attempting to ${row.action}`;
  else if (row.status_code >= 400) text += `unsuccessfully attempted to ${row.action}`;
  else text += ACTION_WORDS[row.action] ?? 'unknown';
  // Sign-ins and sign-outs name no target.
  if (row.resource_type === 'api_key' && ['login', 'logout', 'register'].includes(row.action)) return text;
  const noun = RESOURCE_WORDS[row.resource_type] ?? 'unknown';
  if (row.resource_type === 'git_ssh_key') return `${text} the ${noun}`;
  text += row.action === 'request_password_reset' ? ' for' : ` ${noun}`;
  if (row.resource_type === 'convert_login') text += ' to';
  return `${text} {target}`;
}

/** Where the dashboard shows the resource an entry names; empty for one that is gone or has no page. */
function resourceLink(row: AuditLogWithOrganization, state: AuditedResourceState | undefined, fields: Record<string, string>): string {
  switch (row.resource_type) {
    case 'template':
      return state ? `/templates/${state.scope}/${state.name}` : '';
    case 'user':
      return `/users?filter=${encodeURIComponent(row.resource_target)}`;
    case 'workspace':
      return state ? `/@${state.scope}/${state.name}` : '';
    case 'workspace_build':
      return state?.buildNumber !== undefined ? `/@${state.scope}/${state.name}/builds/${state.buildNumber}` : '';
    case 'workspace_agent':
    case 'workspace_app': {
      const owner = fields['workspace_owner'];
      const workspace = fields['workspace_name'];
      return owner && workspace ? `/@${owner}/${workspace}` : '';
    }
    case 'oauth2_provider_app':
      return `/deployment/oauth2-provider/apps/${row.resource_id}`;
    default:
      return '';
  }
}

function parseObject<T>(text: string): Record<string, T> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, T>) : {};
  } catch {
    return {};
  }
}

/** Whether the resource an entry names is gone now: looked up for the page (templates, users, workspaces, builds). */
function isDeleted(row: AuditLogWithOrganization, page: AuditLogPageRows): boolean {
  if (!['template', 'user', 'workspace', 'workspace_build'].includes(row.resource_type)) return false;
  const state = page.resources.get(row.resource_id);
  return state === undefined || state.deleted;
}

/** One entry as the API shows it. */
export function toWireAuditLog(row: AuditLogWithOrganization, page: AuditLogPageRows): AuditLog {
  const fields = parseObject<string>(row.additional_fields);
  const deleted = isDeleted(row, page);
  const user = row.user_id === null ? undefined : page.users.get(row.user_id);
  return {
    id: row.id,
    request_id: row.request_id,
    time: row.time,
    ip: row.ip,
    user_agent: row.user_agent,
    resource_type: row.resource_type as AuditLog['resource_type'],
    resource_id: row.resource_id || NIL_UUID,
    resource_target: row.resource_target,
    resource_icon: row.resource_icon,
    action: row.action as AuditLog['action'],
    diff: parseObject<AuditLog['diff'][string]>(row.diff),
    status_code: row.status_code,
    additional_fields: fields,
    description: auditDescription(row),
    resource_link: deleted ? '' : resourceLink(row, page.resources.get(row.resource_id), fields),
    is_deleted: deleted,
    organization_id: row.organization_id || NIL_UUID,
    ...(row.organization_id && row.organization_name !== null
      ? {
          organization: {
            id: row.organization_id,
            name: row.organization_name,
            display_name: row.organization_display_name ?? '',
            icon: row.organization_icon ?? '',
          },
        }
      : {}),
    // The reference leaves the organizations of an entry's user out.
    user: user ? toWireUser(user, []) : null,
  };
}

/** A page of entries and how many match in all. */
export function toWireAuditLogs(page: AuditLogPageRows, count: number): AuditLogResponse {
  return { audit_logs: page.rows.map((row) => toWireAuditLog(row, page)), count };
}
