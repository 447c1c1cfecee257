import { ConflictError, forbiddenProblem, HttpProblem, NotAuthorizedError } from '../lib/errors.js';
import { canAssignRole, isSiteRoleName, MEMBER_ROLE, type Subject } from '../rbac/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import { parseStringArray } from '../store/json-column.js';
import type { UserRow } from '../store/rows.js';
import { nameProblem, realNameProblem, ruleDetail } from './names.js';
import { hashPassword, passwordWeakness, verifyPassword } from './passwords.js';

function refusedAs403<T>(work: Promise<T>): Promise<T> {
  return work.catch((error: unknown) => {
    if (error instanceof NotAuthorizedError) throw forbiddenProblem();
    throw error;
  });
}

/*
 * Every change here asks the store whether the caller outranks the user (`requireOutranks`) before
 * any rule that looks at the user, so nobody below them learns anything from the answer. The
 * store asks again at the write, which is what holds if a rule forgets.
 */

/** Suspends or reactivates a user. Nobody suspends themselves or an owner. */
export async function setUserStatus(store: AuthorizedStore, user: UserRow, status: 'active' | 'suspended'): Promise<UserRow> {
  if (status === 'suspended' && user.id === store.subject.id) throw new HttpProblem(400, 'You cannot suspend yourself.');
  await store.requireOutranks(user);
  if (status === 'suspended') {
    if (parseStringArray(user.rbac_roles).includes('owner')) {
      throw new HttpProblem(400, 'You cannot suspend a user with the "owner" role. You must remove the role first.');
    }
  }
  return refusedAs403(store.users.update(user.id, 'admin', { status }));
}

/** Replaces a user's site roles under the assignment rules. */
export async function setUserSiteRoles(store: AuthorizedStore, user: UserRow, requested: readonly string[]): Promise<UserRow> {
  if (user.id === store.subject.id) throw new HttpProblem(400, 'You cannot change your own roles.');
  await store.requireOutranks(user);
  const wanted = [...new Set(requested.filter((name) => name !== MEMBER_ROLE))];
  for (const name of wanted) {
    if (name.includes(':')) throw new HttpProblem(400, 'Must only update site wide roles');
    if (!isSiteRoleName(name)) throw new HttpProblem(400, `"${name}" is not a supported role`);
  }
  const current = parseStringArray(user.rbac_roles);
  const added = wanted.filter((name) => !current.includes(name));
  const removed = current.filter((name) => !wanted.includes(name));
  // Lacking the right to assign at all is a 403; trying to grant a role beyond one's own is a 400.
  const assignRole = { type: 'assign_role' } as const;
  if ((added.length > 0 && !store.can('assign', assignRole)) || (removed.length > 0 && !store.can('unassign', assignRole))) {
    throw forbiddenProblem();
  }
  checkAssignable(store.subject, [...added, ...removed]);
  return refusedAs403(store.users.setSiteRoles(user.id, wanted, { added: added.length > 0, removed: removed.length > 0 }));
}

function checkAssignable(actor: Subject, names: readonly string[]): void {
  for (const name of names) {
    if (!canAssignRole(actor, name, '', false)) throw new HttpProblem(400, `not authorized to assign role "${name}"`);
  }
}

/** Deletes a user; nobody deletes themselves. */
export async function deleteUser(store: AuthorizedStore, user: UserRow): Promise<void> {
  if (user.id === store.subject.id) throw new HttpProblem(403, 'You cannot delete yourself!');
  await store.requireOutranks(user);
  await refusedAs403(store.users.delete(user.id));
}

/** Changes username and real name. */
export async function updateProfile(
  store: AuthorizedStore,
  user: UserRow,
  body: { username: string; name?: string | undefined },
): Promise<UserRow> {
  await store.requireOutranks(user);
  const problem = nameProblem(body.username);
  if (problem)
    throw new HttpProblem(400, 'Validation failed.', {
      validations: [{ field: 'username', detail: `${ruleDetail('username', body.username)}: ${problem}` }],
    });
  const name = body.name === undefined ? user.name : body.name.trim().slice(0, 128);
  if (realNameProblem(name))
    throw new HttpProblem(400, 'Validation failed.', { validations: [{ field: 'name', detail: ruleDetail('user_real_name', body.name) }] });
  try {
    return await store.users.update(user.id, 'personal', { username: body.username, name });
  } catch (error) {
    if (error instanceof ConflictError) {
      throw new HttpProblem(409, 'A user with this username already exists.', {
        validations: [{ field: 'username', detail: 'This username is already in use.' }],
      });
    }
    throw error;
  }
}

/** Changes a password: your own needs the old one; every session of the user ends. */
export async function changePassword(
  store: AuthorizedStore,
  user: UserRow,
  body: { old_password?: string | undefined; password: string },
): Promise<void> {
  if (!store.can('update_personal', { type: 'user', id: user.id, owner_id: user.id }))
    throw new NotAuthorizedError('update_personal', 'user');
  await store.requireOutranks(user);
  if (user.login_type !== 'password') throw new HttpProblem(400, 'Users without password login type cannot change their password.');
  const weakness = passwordWeakness(body.password);
  if (weakness) throw new HttpProblem(400, 'Invalid password.', { validations: [{ field: 'password', detail: weakness }] });
  if (user.id === store.subject.id) {
    if (!body.old_password) throw new HttpProblem(400, 'Old password is required.');
    if (!(await verifyPassword(body.old_password, user.hashed_password))) {
      throw new HttpProblem(400, 'Old password is incorrect.', {
        validations: [{ field: 'old_password', detail: 'Old password is incorrect.' }],
      });
    }
  }
  if (await verifyPassword(body.password, user.hashed_password)) throw new HttpProblem(400, 'New password cannot match old password.');
  await store.users.update(user.id, 'personal', { hashed_password: await hashPassword(body.password) });
  await store.tokens.deleteAll(user.id);
}
