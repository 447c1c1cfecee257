import type { AuthorizedStore } from '../store/authorized-store.js';
import type { SyncChanges } from '../store/authorized/idp-sync.js';
import type { UserRow } from '../store/rows.js';
import { groupOutcomes, roleOutcomes, syncedGroupNames, syncedSiteRoles, type IdpSyncSettings } from './idp-sync.js';

/** Where sync reports what it ignored or changed. */
export type SyncLog = (fields: Record<string, unknown>, message: string) => void;

/**
 * Runs at every OIDC sign-in once the account is known: keeps the claims on the user's link, and
 * applies group and role sync when they are on. A group claim that cannot be read leaves the
 * memberships as they are (logged), as the reference does; a role claim that cannot be read refuses
 * the sign-in (see roleOutcomes). `store` is the IdP sync subject's.
 */
export async function syncAtSignIn(
  store: AuthorizedStore,
  settings: IdpSyncSettings,
  user: UserRow,
  claims: Readonly<Record<string, unknown>>,
  organizationId: string,
  log: SyncLog,
): Promise<SyncChanges> {
  const groups = groupOutcomes(settings, claims);
  if (groups && 'error' in groups) log({ userId: user.id, reason: groups.error }, 'group sync skipped: the group claim cannot be read');
  const roles = roleOutcomes(settings, claims);
  const ignored = roles?.filter((outcome) => !outcome.assignable).map((outcome) => outcome.role) ?? [];
  if (ignored.length > 0) log({ userId: user.id, ignored }, 'role sync ignored roles that are not assignable site roles');
  const changes = await store.idpSync.apply(user, {
    loginType: 'oidc',
    claims,
    organizationId,
    ...(groups && 'outcomes' in groups
      ? { groups: { names: syncedGroupNames(groups.outcomes), autoCreate: settings.autoCreateGroups } }
      : {}),
    ...(roles ? { siteRoles: syncedSiteRoles(roles) } : {}),
  });
  if (changes.groupsMissing.length > 0) {
    log(
      { userId: user.id, missing: changes.groupsMissing },
      'group sync ignored groups that do not exist (--oidc-group-auto-create is off)',
    );
  }
  return changes;
}
