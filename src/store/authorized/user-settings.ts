import { StoreFamily, notFound } from './store-family.js';
import { userObject } from '../../rbac/index.js';
import { lastBuildParameters } from '../queries/autofill-parameters.js';
import * as userConfigs from '../queries/user-configs.js';
import * as users from '../queries/users.js';
import type { Database } from '../schema.js';
import type { Kysely } from 'kysely';

/** A user's look of the dashboard: the theme stays on the user row, the rest in their settings. */
export interface UserAppearanceRow {
  readonly theme_preference: string;
  readonly terminal_font: string;
}

/** The per-user settings kept as key and value, under the names the stored rows use. */
const TERMINAL_FONT = 'terminal_font';
const TASK_ALERT_DISMISSED = 'preference_task_notification_alert_dismissed';

/** What a user chose for themselves: appearance and preferences, each read and changed as personal data. */
export class UserSettingsStore extends StoreFamily {
  /** A user's theme and terminal font; needs `read_personal` on the user. */
  async appearance(userId: string): Promise<UserAppearanceRow> {
    this.require('read_personal', userObject(userId));
    const user = (await users.getUserById(this.db, userId)) ?? notFound('user');
    const configs = await userConfigs.getUserConfigs(this.db, user.id);
    return { theme_preference: user.theme_preference, terminal_font: configs.get(TERMINAL_FONT) ?? '' };
  }

  /** Replaces a user's theme and terminal font; needs `update_personal` on the user. */
  async setAppearance(userId: string, appearance: UserAppearanceRow): Promise<UserAppearanceRow> {
    this.require('update_personal', userObject(userId));
    const user = (await users.getUserById(this.db, userId)) ?? notFound('user');
    await this.requireOutranks(user);
    await this.db.transaction().execute(async (trx: Kysely<Database>) => {
      await users.updateUser(trx, user.id, { theme_preference: appearance.theme_preference });
      await userConfigs.setUserConfigs(trx, user.id, { [TERMINAL_FONT]: appearance.terminal_font });
    });
    // The user answer carries the theme, and sessions cache the user row it is made from.
    await this.store.invalidateSessions({ userId: user.id });
    return { theme_preference: appearance.theme_preference, terminal_font: appearance.terminal_font };
  }

  /** Whether the user dismissed the dashboard's task notification alert; needs `read_personal` on the user. */
  async preferences(userId: string): Promise<{ task_notification_alert_dismissed: boolean }> {
    this.require('read_personal', userObject(userId));
    const configs = await userConfigs.getUserConfigs(this.db, userId);
    return { task_notification_alert_dismissed: configs.get(TASK_ALERT_DISMISSED) === 'true' };
  }

  /** Records the user's preferences; needs `update_personal` on the user. */
  async setPreferences(
    userId: string,
    preferences: { readonly task_notification_alert_dismissed: boolean },
  ): Promise<{ task_notification_alert_dismissed: boolean }> {
    this.require('update_personal', userObject(userId));
    await this.requireOutranks(userId);
    await userConfigs.setUserConfigs(this.db, userId, { [TASK_ALERT_DISMISSED]: String(preferences.task_notification_alert_dismissed) });
    return { task_notification_alert_dismissed: preferences.task_notification_alert_dismissed };
  }

  /**
   * The values the user last gave the template's parameters, for the create form to start from;
   * needs `read_personal` on the user, whose past choices they are.
   */
  async autofillParameters(userId: string, templateId: string): Promise<{ name: string; value: string }[]> {
    this.require('read_personal', userObject(userId));
    return lastBuildParameters(this.db, userId, templateId);
  }
}
