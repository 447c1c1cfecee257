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
  /** Turns a presented token into a user: reads keys and users, records a key's last use. */
  authenticator: named('authenticator', [
    ...allow('api_key', ['read', 'update']), // find the key by id, bump last_used
    ...allow('user', ['read', 'read_personal']), // the key's user, their roles and memberships
    ...allow('organization_member', ['read']), // memberships become org roles in the subject
  ]),
  /**
   * A connected provisioner daemon working the job protocol. The daemon itself was authenticated
   * when it connected (provisioner key, built-in key or a user's session); this is what it may do
   * with the jobs it acquires.
   */
  provisionerDaemon: named('provisionerDaemon', [
    ...allow('provisioner_daemon', ['create', 'update']), // record the daemon's row on connect, refresh last_seen_at
    ...allow('provisioner_jobs', ['read', 'update']), // find queued jobs, claim one, append logs, complete or fail it
    ...allow('file', ['read']), // hand the job's template archive to the daemon
    ...allow('user', ['read']), // the initiator's and workspace owner's usernames in the acquired job
    ...allow('template', ['read', 'update']), // read a build's template for deadlines; store an import's results on its version
    ...allow('workspace', ['read', 'update', 'delete']), // read a build's workspace; store resources, agents, state; a delete build deletes it
    ...allow('workspace_dormant', ['read', 'update', 'delete']), // the same for builds of dormant workspaces
  ]),
  /** Resolves what a connecting provisioner daemon names before it is known: its organization and key. */
  provisionerAuthenticator: named('provisionerAuthenticator', [
    ...allow('organization', ['read']), // the organization in the path, which the daemon will serve
    ...allow('provisioner_daemon', ['read']), // find the provisioner key whose secret the daemon presented
  ]),
  /** Fails provisioner jobs that stopped making progress, on a timer in the daemon. */
  jobReaper: named('jobReaper', [
    ...allow('provisioner_jobs', ['read', 'update']), // find hung or never-taken jobs, fail them with log lines saying why
  ]),
});

/** The name of one of {@link SYSTEM_SUBJECTS}. */
export type SystemSubjectName = keyof typeof SYSTEM_SUBJECTS;
