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
});

/** The name of one of {@link SYSTEM_SUBJECTS}. */
export type SystemSubjectName = keyof typeof SYSTEM_SUBJECTS;
