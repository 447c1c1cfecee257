import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The notifications section of `--help` and of the YAML file. */
export const NOTIFICATION_EVENTS_GROUP: OptionGroup = {
  name: 'Notifications',
  yaml: 'notifications',
  description: 'Telling users of events by e-mail, webhook and the in-app inbox.',
};

/** What the notification event options resolve to; durations are milliseconds. */
export interface NotificationEventValues {
  readonly notificationsAutostopWarningMs: number;
}

/** The options of the events that queue notifications, in `--help` order. */
export const NOTIFICATION_EVENT_OPTIONS: readonly OptionDefinition<keyof NotificationEventValues>[] = [
  {
    key: 'notificationsAutostopWarningMs',
    name: 'Notifications: Autostop Warning',
    flag: 'notifications-autostop-warning',
    env: 'COVE_NOTIFICATIONS_AUTOSTOP_WARNING',
    yaml: 'autostop_warning',
    group: NOTIFICATION_EVENTS_GROUP,
    configPath: ['notifications', 'autostop_warning'],
    kind: 'duration',
    default: '1h',
    description: "How long before a workspace's automatic stop its owner is warned, with a link that extends it; 0 turns the warning off.",
  },
];
