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
    ...allow('api_key', ['create']), // the new session's key
  ]),
  /** Issues and redeems one-time passcodes: the user asking has forgotten their password. */
  passwordReset: named('password-reset', [
    ...allow('user', ['read', 'update_personal']), // find the user by email; store the passcode and the new password
    ...allow('api_key', ['delete']), // a reset ends every session of the user
  ]),
  /** Creates the first user, the site's owner: nobody exists yet who could. */
  firstUser: named('first-user', [
    ...allow('system', ['read', 'create']), // whether the first user exists; claim the setting that records it
    ...allow('user', ['create']), // the user
    ...allow('assign_role', ['assign']), // who is the site's owner
    ...allow('organization_member', ['create']), // membership of the default organization
  ]),
  /** Gives a deployment its identity on first start, before any request. */
  bootstrap: named('bootstrap', [
    ...allow('system', ['read', 'create']), // the deployment id and signing key in the site settings
    ...allow('organization', ['read', 'create']), // the default organization
  ]),
  /** Marks users not seen for a while as dormant, on a timer. */
  userDormancy: named('user-dormancy', [
    ...allow('user', ['update']), // the status of inactive users
  ]),
  /** Resolves the user named in a member route: the membership is what is authorized, not the user. */
  memberLookup: named('member-lookup', [
    ...allow('user', ['read']), // a user by id or username, whether or not the caller may read them as a user
  ]),
});

/** The name of one of {@link SYSTEM_SUBJECTS}. */
export type SystemSubjectName = keyof typeof SYSTEM_SUBJECTS;
