import type { UserRow } from '../../../store/rows.js';
import type { NotificationRequest } from '../notification-request.js';
import { tell, type EventNotifier } from './event-notifier.js';

/** The site roles that look after accounts: they hear of accounts created, suspended and activated. */
export const USER_ADMIN_ROLES: readonly string[] = ['owner', 'user-admin'];

/**
 * Tells the deployment's owners and user administrators that `user` was created, by `initiator`
 * (a name: a user's, or how the account came, such as `oidc`). The new user is not told of
 * themselves when they are an administrator. Never throws.
 */
export async function notifyUserCreated(notifier: EventNotifier, user: UserRow, initiator: string): Promise<number> {
  return tell(notifier, 'user account created', async () => {
    const admins = await notifier.store.notificationEvents.usersWithSiteRoles(USER_ADMIN_ROLES);
    return admins
      .filter((admin) => admin.id !== user.id)
      .map((admin): NotificationRequest => ({
        kind: 'userAccountCreated',
        userId: admin.id,
        labels: { createdAccount: user.username, createdAccountName: user.name, initiator },
        targets: [user.id],
        createdBy: 'api-users-create',
        dedupeKey: `user-account-created:${user.id}:${admin.id}`,
      }));
  });
}

/**
 * Tells the deployment's owners and user administrators, and the user, that the user's account
 * was suspended or activated by `initiator`. `user` is the row after the change: its
 * `updated_at` tells one change from the next, so suspending, activating and suspending again
 * are three events. Never throws.
 */
export async function notifyUserStatusChanged(
  notifier: EventNotifier,
  user: UserRow,
  status: 'active' | 'suspended',
  initiator: UserRow,
): Promise<number> {
  const suspended = status === 'suspended';
  const account = suspended ? 'suspendedAccount' : 'activatedAccount';
  const labels = { [account]: user.username, [`${account}Name`]: user.name, initiator: initiator.username };
  const change = `user-account-${status}:${user.id}:${user.updated_at}`;
  return tell(notifier, `user account ${suspended ? 'suspended' : 'activated'}`, async () => {
    const admins = await notifier.store.notificationEvents.usersWithSiteRoles(USER_ADMIN_ROLES);
    const toAdmins = admins
      .filter((admin) => admin.id !== user.id)
      .map((admin): NotificationRequest => ({
        kind: suspended ? 'userAccountSuspended' : 'userAccountActivated',
        userId: admin.id,
        labels,
        targets: [user.id],
        createdBy: 'api-put-user-status',
        dedupeKey: `${change}:${admin.id}`,
      }));
    const toUser: NotificationRequest = {
      kind: suspended ? 'yourAccountSuspended' : 'yourAccountActivated',
      userId: user.id,
      labels,
      targets: [user.id],
      createdBy: 'api-put-user-status',
      dedupeKey: `${change}:self`,
    };
    return [...toAdmins, toUser];
  });
}
