/**
 * What the audit log records of each state-changing API route (paths under `/api/v2`) when the
 * request wrote no entry of its own, which happens when it was refused, invalid or failed before
 * its change: the resource type and the action. `transition` takes the action from the body's
 * `transition` (a build starts, stops or deletes its workspace).
 */
export interface AuditedRoute {
  readonly resourceType: string;
  readonly action: string;
}

const user = (action: string): AuditedRoute => ({ resourceType: 'user', action });
const workspace = (action: string): AuditedRoute => ({ resourceType: 'workspace', action });
const template = (action: string): AuditedRoute => ({ resourceType: 'template', action });
const version = (action: string): AuditedRoute => ({ resourceType: 'template_version', action });
const of = (resourceType: string, action: string): AuditedRoute => ({ resourceType, action });

/** One line per audited route: `METHOD /path` -> what its entry says. */
export const AUDITED_ROUTES: Readonly<Record<string, AuditedRoute>> = {
  'POST /users': user('create'),
  'DELETE /users/:user': user('delete'),
  'PUT /users/:user/profile': user('write'),
  'PUT /users/:user/roles': user('write'),
  'PUT /users/:user/password': user('write'),
  'PUT /users/:user/status/activate': user('write'),
  'PUT /users/:user/status/suspend': user('write'),
  'PUT /users/:user/appearance': user('write'),
  'PUT /users/:user/preferences': user('write'),
  'PUT /users/:user/quiet-hours': user('write'),
  'POST /users/otp/change-password': user('write'),
  'PUT /users/:user/gitsshkey': of('git_ssh_key', 'write'),
  'POST /users/:user/keys': of('api_key', 'create'),
  'POST /users/:user/keys/tokens': of('api_key', 'create'),
  'DELETE /users/:user/keys/:keyid': of('api_key', 'delete'),
  'POST /users/:user/convert-login': of('convert_login', 'create'),
  'POST /users/:user/workspaces': workspace('create'),
  'POST /organizations': of('organization', 'create'),
  'PATCH /organizations/:organization': of('organization', 'write'),
  'DELETE /organizations/:organization': of('organization', 'delete'),
  'PATCH /organizations/:organization/settings/workspace-sharing': of('organization', 'write'),
  'POST /organizations/:organization/members/:user': of('organization_member', 'create'),
  'DELETE /organizations/:organization/members/:user': of('organization_member', 'delete'),
  'PUT /organizations/:organization/members/:user/roles': of('organization_member', 'write'),
  'POST /organizations/:organization/members/:user/workspaces': workspace('create'),
  'POST /organizations/:organization/members/roles': of('custom_role', 'create'),
  'PUT /organizations/:organization/members/roles': of('custom_role', 'write'),
  'DELETE /organizations/:organization/members/roles/:roleName': of('custom_role', 'delete'),
  'POST /organizations/:organization/groups': of('group', 'create'),
  'PATCH /groups/:group': of('group', 'write'),
  'DELETE /groups/:group': of('group', 'delete'),
  'POST /organizations/:organization/templates': template('create'),
  'PATCH /templates/:template': template('write'),
  'DELETE /templates/:template': template('delete'),
  'PATCH /templates/:template/acl': template('write'),
  'PATCH /templates/:template/versions': template('write'),
  'POST /templates/:template/versions/archive': version('write'),
  'POST /organizations/:organization/templateversions': version('create'),
  'PATCH /templateversions/:templateversion': version('write'),
  'POST /templateversions/:templateversion/archive': version('write'),
  'POST /templateversions/:templateversion/unarchive': version('write'),
  'POST /workspaces/:workspace/builds': of('workspace_build', 'transition'),
  'PUT /workspacebuilds/:workspacebuild/state': of('workspace_build', 'write'),
  'PATCH /workspaces/:workspace': workspace('write'),
  'PUT /workspaces/:workspace/autostart': workspace('write'),
  'PUT /workspaces/:workspace/ttl': workspace('write'),
  'PUT /workspaces/:workspace/autoupdates': workspace('write'),
  'PUT /workspaces/:workspace/dormant': workspace('write'),
  'PUT /workspaces/:workspace/extend': workspace('write'),
  'PATCH /workspaces/:workspace/acl': workspace('write'),
  'DELETE /workspaces/:workspace/acl': workspace('write'),
  'POST /workspaces/:workspace/port-share': workspace('write'),
  'DELETE /workspaces/:workspace/port-share': workspace('write'),
  'POST /licenses': of('license', 'create'),
  'DELETE /licenses/:id': of('license', 'delete'),
  'PUT /debug/health/settings': of('health_settings', 'write'),
  'PUT /notifications/templates/:notification_template/method': of('notification_template', 'write'),
  'PUT /notifications/settings': of('notifications_settings', 'write'),
};

/**
 * State-changing routes the audit log leaves out, each with why. A route in neither list fails
 * the route-table test, so that a new route is decided on when it is added.
 */
export const UNAUDITED_ROUTES: Readonly<Record<string, string>> = {
  'POST /users/login': 'a sign-in writes its own entry (login), failed ones included',
  'POST /users/logout': 'a sign-out writes its own entry (logout)',
  'POST /users/first': 'the first user writes its own entry (register)',
  'POST /users/otp/request': 'writes its own entry (request_password_reset) when the address names a user',
  'POST /users/validate-password': 'checks a password, changes nothing',
  'POST /authcheck': 'asks what the caller may do, changes nothing',
  'POST /files': 'an upload is content-addressed data that a template version refers to; the version is audited',
  'POST /csp/reports': "a browser's report of a content-security violation",
  'POST /applications/reconnecting-pty-signed-token': 'a token for one terminal connection; the connection log records the session',
  'POST /external-auth/:externalauth/device': "a step of a provider's device flow",
  'DELETE /external-auth/:externalauth': "unlinks the caller's own provider account",
  'POST /licenses/refresh-entitlements': 'recomputes what the stored licenses entitle, changes nothing stored',
  'POST /notifications/test': 'sends the caller a test notification; the queue keeps the message',
  'PUT /users/:user/notifications/preferences': "a user's own choice of what to be told, as the reference leaves it out",
  'PUT /notifications/inbox/:id/read-status': "marks one of the caller's own notifications read",
  'PUT /notifications/inbox/mark-all-as-read': "marks the caller's own notifications read",
  'PUT /appearance': 'the deployment appearance has no audit resource type in the reference',
  'POST /organizations/:organization/provisionerkeys': 'provisioner keys have no audit resource type in the reference',
  'DELETE /organizations/:organization/provisionerkeys/:keyName': 'provisioner keys have no audit resource type in the reference',
  'PATCH /templateversions/:templateversion/cancel': "cancels an import job; the job's log keeps it",
  'POST /templateversions/:templateversion/dry-run': 'a dry run changes nothing',
  'PATCH /templateversions/:templateversion/dry-run/:jobID/cancel': 'a dry run changes nothing',
  'POST /templateversions/:templateversion/dynamic-parameters/evaluate': 'evaluates parameters, changes nothing',
  'PATCH /workspacebuilds/:workspacebuild/cancel': "cancels a build's job; the build's log keeps it",
  'PUT /workspaces/:workspace/favorite': "the caller's own bookmark",
  'DELETE /workspaces/:workspace/favorite': "the caller's own bookmark",
  'POST /workspaces/:workspace/usage': 'a report of use, frequent; insights keep it',
  'POST /workspaceagents/me/log-source': "an agent's own report",
  'PATCH /workspaceagents/me/logs': "an agent's own report",
  'PATCH /workspaceagents/me/app-status': "an agent's own report",
  'POST /workspaceagents/aws-instance-identity': 'an agent exchanging its instance identity for its token',
  'POST /workspaceagents/azure-instance-identity': 'an agent exchanging its instance identity for its token',
  'POST /workspaceagents/google-instance-identity': 'an agent exchanging its instance identity for its token',
  'POST /workspaceagents/:workspaceagent/containers/devcontainers/:devcontainer/recreate':
    "asks the agent to rebuild a dev container; the agent's logs keep it",
};
