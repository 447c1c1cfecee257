// Who is signed in: read once from /users/me, shared with every page.
import { createContext, useContext } from 'react';
import type { User } from '../sdk/wire/index.js';

/** The signed-in user, and a way to read them again (after a sign-in or sign-out). */
export interface Session {
  readonly user: User;
  readonly refresh: () => Promise<void>;
}

export const SessionContext = createContext<Session | undefined>(undefined);

/** The signed-in user; pages under the shell only render once there is one. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** Whether the user may read the audit and connection logs (owners and auditors). */
export function mayAudit(user: User): boolean {
  return user.roles.some((role) => role.name === 'owner' || role.name === 'auditor');
}

/** Whether the user holds a site role that runs the deployment. */
export function isOwner(user: User): boolean {
  return user.roles.some((role) => role.name === 'owner' || role.name === 'user-admin');
}
