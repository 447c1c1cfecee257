import { allow, type Permission, type Role } from './role.js';
import { SYSTEM_SUBJECT_ID, type Subject } from './subject.js';

function systemRole(name: string, site: readonly Permission[]): Role {
  return Object.freeze({ name: `system:${name}`, display_name: `System (${name})`, organization_id: '', site, org: [], user: [] });
}

function named(name: string, site: readonly Permission[]): Subject {
  return Object.freeze({ id: SYSTEM_SUBJECT_ID, type: 'system', name, roles: [systemRole(name, site)], groups: [], scope: 'all' });
}

/**
 * The actors that do work no user asked for, each with only the permissions its job needs. A use of
 * one says in a comment why no user's subject fits there. One line per grant: why it is needed.
 */
export const SYSTEM_SUBJECTS = Object.freeze({
  /** Turns a presented token into a user: reads keys and users, records a key's use and the user's. */
  authenticator: named('authenticator', [
    ...allow('api_key', ['read', 'update']), // find the key by id; bump last_used and the expiry
    ...allow('user', ['read', 'update']), // the key's user; record last_seen_at, wake a dormant user
    ...allow('organization_member', ['read']), // memberships become org roles in the subject
    ...allow('assign_org_role', ['read']), // custom roles named by those memberships
  ]),
  /** Signs a user in with email and password: nobody is signed in until the password checks out. */
  passwordSignIn: named('password-sign-in', [
    ...allow('user', ['read', 'update']), // find the user by email; record last_seen_at, wake a dormant user
    ...allow('user', ['update_personal']), // replace a password hash of an older cost with a new hash of the password just checked
    ...allow('api_key', ['create']), // the new session's key
    ...allow('system', ['update']), // count a failed attempt against the account; forget the count on success
    ...allow('api_key', ['read']), // whether the account has a key used from the signing-in address, which is paced apart
  ]),
  /**
   * Signs a user in through OIDC or GitHub: nobody is signed in until the provider vouches for them,
   * and a first sign-in may create the account or finish converting a password account.
   */
  externalSignIn: named('external-sign-in', [
    ...allow('system', ['create', 'delete']), // store a sign-in under way; spend its state when the provider sends the browser back
    ...allow('user', ['read', 'create', 'update']), // find the user by link or email; create a new account; record the link and last_seen_at
    ...allow('user', ['update_personal']), // a conversion switches the login type and drops the password
    ...allow('organization_member', ['create']), // a new account joins the default organization
    ...allow('api_key', ['create']), // the new session's key
  ]),
  /**
   * Applies group and role sync at an OIDC sign-in: the provider's claims decide, and the user
   * signing in is not yet someone who may change their own groups or roles.
   */
  idpSync: named('idp-sync', [
    ...allow('user', ['read', 'update']), // the user's row for their roles; the claims stored on their link
    ...allow('group', ['read', 'update']), // the default organization's groups; the user's memberships in them
    ...allow('group', ['create']), // groups the claims name that do not exist yet, when auto-creation is on
    ...allow('assign_role', ['assign', 'unassign']), // the site roles the role claim names
  ]),
  /** Issues and redeems one-time passcodes: the user asking has forgotten their password. */
  passwordReset: named('password-reset', [
    ...allow('user', ['read', 'update_personal']), // find the user by email; store the passcode and the new password
    ...allow('api_key', ['delete']), // a reset ends every session of the user
    ...allow('system', ['update']), // count a wrong passcode against the account; forget the count on success
  ]),
  /** Creates the first user, the site's owner: nobody exists yet who could. */
  firstUser: named('first-user', [
    ...allow('system', ['read', 'create']), // whether the first user exists; claim the setting that records it
    ...allow('user', ['create']), // the user
    ...allow('assign_role', ['assign']), // who is the site's owner
    ...allow('organization_member', ['create']), // membership of the default organization
  ]),
  /**
   * Creates a site owner from the command line, working on the database itself (`cove server
   * create-admin-user`): the way back in when nobody can sign in as an administrator any more.
   */
  siteAdminCreation: named('site-admin-creation', [
    ...allow('system', ['create']), // close the first-user sign-up when it is still open
    ...allow('user', ['create']), // the administrator
    ...allow('assign_role', ['assign']), // who is a site owner
    ...allow('organization', ['read']), // every organization, which the administrator joins
    ...allow('organization_member', ['create']), // the memberships of those organizations
  ]),
  /** Sets a user's password from the command line, working on the database itself (`cove reset-password`). */
  commandLinePasswordReset: named('command-line-password-reset', [
    ...allow('user', ['read', 'update_personal']), // find the user by username; store the new password, end their sessions
  ]),
  /** Gives a deployment its identity on first start, before any request. */
  bootstrap: named('bootstrap', [
    ...allow('system', ['read', 'create']), // the deployment id and signing key in the site settings
    ...allow('organization', ['read', 'create']), // the default organization
  ]),
  /** Computes the deployment's entitlements from its licenses, at start, on a timer and after license changes. */
  entitlements: named('entitlements', [
    ...allow('license', ['read']), // the stored licenses, whoever uploaded them
    ...allow('user', ['read']), // how many active users count against a user limit
  ]),
  /** Marks users not seen for a while as dormant, on a timer. */
  userDormancy: named('user-dormancy', [
    ...allow('user', ['update']), // the status of inactive users
  ]),
  /** Resolves the user named in a member route: the membership is what is authorized, not the user. */
  memberLookup: named('member-lookup', [
    ...allow('user', ['read']), // a user by id or username, whether or not the caller may read them as a user
  ]),
  /** The lifecycle executor: autostart, autostop at the deadline, dormancy, deletion of dormant workspaces. */
  autobuild: named('autobuild', [
    ...allow('workspace', ['read']), // select the workspaces that are due, with their latest builds
    ...allow('workspace', ['update']), // queue start and stop builds; mark a workspace dormant
    ...allow('workspace_dormant', ['read']), // a dormant workspace stays in view until it is deleted
    ...allow('workspace_dormant', ['update']), // stop a started workspace that has just become dormant
    ...allow('workspace_dormant', ['delete']), // delete a dormant workspace once its deleting_at passes
    ...allow('template', ['read']), // the template's schedule rules and the version a build uses
  ]),
  /** Records use of workspaces through apps, relay streams and agent reports, which need not be their owners'. */
  workspaceUsage: named('workspace-usage', [
    ...allow('workspace', ['read', 'update']), // the latest build and template; last_used_at and the bumped deadline
    ...allow('workspace_dormant', ['read', 'update']), // use of a dormant workspace is recorded like any other
  ]),
  /** Turns a presented workspace agent token into that agent, which then acts as its own subject. */
  agentAuthenticator: named('agent-authenticator', [
    ...allow('workspace', ['read']), // the agent's workspace, and whether its build is still the current one
    ...allow('workspace_dormant', ['read']), // the same for a dormant workspace, whose agent runs until its stop lands
  ]),
  /** Gives the agent on a cloud instance, which holds no token yet, a new one (instance identity). */
  instanceIdentity: named('instance-identity', [
    ...allow('workspace', ['read', 'update']), // the workspace of the instance's agent; update replaces the agent's token hash
    ...allow('workspace_dormant', ['read', 'update']), // the same for a dormant workspace's agent
    ...allow('provisioner_jobs', ['read']), // the type of the job that made the agent, to refuse agents of template imports
  ]),
  /**
   * Finds what an app URL names before anyone may be told it exists: who may open an app depends
   * on its sharing level, which is known only once it is found (a public port opened anonymously).
   */
  appResolver: named('app-resolver', [
    ...allow('user', ['read']), // the owner named in the URL, by username
    ...allow('workspace', ['read']), // the workspace, its newest build's agents with their apps, its shared ports
    ...allow('workspace_dormant', ['read']), // the same for a dormant workspace
  ]),
  /**
   * A connected provisioner daemon working the job protocol. The daemon itself was authenticated
   * when it connected (provisioner key, built-in key or a user's session); this is what it may do
   * with the jobs it acquires.
   */
  provisionerDaemon: named('provisioner-daemon', [
    ...allow('provisioner_daemon', ['create', 'update']), // record the daemon's row on connect, refresh last_seen_at
    ...allow('provisioner_jobs', ['read', 'update']), // find queued jobs, claim one, append logs, complete or fail it
    ...allow('file', ['read']), // hand the job's template archive to the daemon
    ...allow('user', ['read']), // the initiator's and workspace owner's usernames in the acquired job
    ...allow('template', ['read', 'update']), // read a build's template for deadlines; store an import's results on its version
    ...allow('workspace', ['read', 'update', 'delete']), // read a build's workspace; store resources, agents, state; a delete build deletes it
    ...allow('workspace_dormant', ['read', 'update', 'delete']), // the same for builds of dormant workspaces
  ]),
  /** Resolves what a connecting provisioner daemon names before it is known: its organization and key. */
  provisionerAuthenticator: named('provisioner-authenticator', [
    ...allow('organization', ['read']), // the organization in the path, which the daemon will serve
    ...allow('provisioner_daemon', ['read']), // find the provisioner key whose secret the daemon presented
  ]),
  /**
   * Runs the deployment's health checks, on a timer and when an operator forces a run: the report
   * is the deployment's, shared by everyone who may read it, so no one reader's subject fits.
   */
  healthCheck: named('health-check', [
    ...allow('debug_info', ['read']), // time round trips to the database
    ...allow('provisioner_daemon', ['read']), // the provisioner daemons seen lately, in every organization
  ]),
  /** Counts what the Prometheus metrics show when they are scraped: nobody signed in asks for them. */
  metricsCollector: named('metrics-collector', [
    ...allow('workspace', ['read']), // count live workspaces by the status of their latest build
    ...allow('workspace_dormant', ['read']), // dormant workspaces are counted with the rest
    ...allow('provisioner_jobs', ['read']), // count jobs waiting for a provisioner and jobs running
  ]),
  /** Fails provisioner jobs that stopped making progress, on a timer in the daemon. */
  jobReaper: named('job-reaper', [
    ...allow('provisioner_jobs', ['read', 'update']), // find hung, orphaned or never-taken jobs, fail them with log lines saying why
    ...allow('provisioner_daemon', ['read']), // whether a job's daemon is still heard from, and its name for those lines
  ]),
  /**
   * Completes the audit log when an answer is sent: writes the entry of a state-changing request
   * that wrote none (refused, invalid or failed), and corrects the status of those it wrote. The
   * caller may have no right to write entries, and need not be signed in.
   */
  auditLogger: named('audit-logger', [
    ...allow('audit_log', ['create']), // the request's own entry; the answer's status on the entries it wrote
  ]),
  /**
   * Writes the connection log as the relay opens and ends connections: the row is the deployment's
   * record of the connection, not something its user may write, and an anonymous public app has no user.
   */
  connectionLogger: named('connection-logger', [
    ...allow('audit_log', ['create']), // write a connection's row when it opens, its end when it closes, and close what a dead run left open
  ]),
  /** Fails, at start, the jobs this replica's built-in provisioner daemons held when it last stopped. */
  jobRecovery: named('job-recovery', [
    ...allow('provisioner_jobs', ['read', 'update']), // find the jobs those daemons held, fail them with log lines saying why
    ...allow('provisioner_daemon', ['read']), // the name of the daemon that held each, for those lines
  ]),
  /** Sends queued notifications on a timer and queues new ones for events: no user asks, and the recipient is often not the actor. */
  notifier: named('notifier', [
    ...allow('notification_message', ['create', 'read', 'update']), // queue messages; lease them, mark them sent or failed
    ...allow('notification_preference', ['read']), // which kinds the recipient turned off
    ...allow('notification_template', ['read']), // the method an operator chose for a kind
    ...allow('inbox_notification', ['create']), // deliver to the recipient's in-app inbox
    ...allow('user', ['read']), // the recipient's name and address
    ...allow('deployment_config', ['read']), // whether sending is paused
  ]),
});

/** The grants of a workspace agent, at the user level: on its owner's objects only (see {@link workspaceAgentSubject}). */
const WORKSPACE_AGENT_GRANTS: readonly Permission[] = Object.freeze([
  ...allow('workspace', ['read', 'update']), // its workspace and build; update writes its own row, logs, script timings, app statuses
  ...allow('workspace_dormant', ['read', 'update']), // the same while its workspace is dormant and not yet stopped
  ...allow('user', ['read', 'read_personal']), // the owner's username for the manifest; the owner's git SSH key
]);

/**
 * A workspace agent acting for itself, once its token proved which agent it is: it reads its
 * manifest and reports lifecycle, stats, logs, app health and statuses. Rather than a
 * deployment-wide actor it is scoped to its workspace's owner in the workspace's organization:
 * every grant is a user-level one, which the policy applies only to objects that owner owns in
 * that organization (and to the owner's own user row), so an agent can reach nothing of anyone
 * else. The store methods it calls take the agent itself and change that agent's rows only.
 */
export function workspaceAgentSubject(workspace: { readonly owner_id: string; readonly organization_id: string }): Subject {
  const role: Role = Object.freeze({
    name: 'system:workspace-agent',
    display_name: 'System (workspace agent)',
    organization_id: workspace.organization_id,
    site: [],
    org: [],
    user: WORKSPACE_AGENT_GRANTS,
  });
  return Object.freeze({ id: workspace.owner_id, type: 'system', name: 'workspace-agent', roles: [role], groups: [], scope: 'all' });
}

/** The name of one of {@link SYSTEM_SUBJECTS}. */
export type SystemSubjectName = keyof typeof SYSTEM_SUBJECTS;
