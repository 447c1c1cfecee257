import { OptionError } from './option-error.js';
import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The notifications section of `--help` and of the YAML file. */
export const NOTIFICATIONS_GROUP: OptionGroup = {
  name: 'Notifications',
  yaml: 'notifications',
  description: 'How users are told about events: e-mail (through the Email settings), a webhook, and the in-app inbox.',
};

/** The methods a deployment can send by, besides the inbox. */
export const NOTIFICATION_DELIVERY_METHODS = ['smtp', 'webhook'] as const;

/** What the notifications options resolve to; durations are milliseconds. */
export interface NotificationsValues {
  readonly notificationsMethod: string;
  readonly notificationsDispatchTimeoutMs: number;
  readonly notificationsWebhookEndpoint: string;
  readonly notificationsWebhookSecret: string;
  readonly notificationsInboxEnabled: boolean;
  readonly notificationsMaxSendAttempts: number;
  readonly notificationsRetryIntervalMs: number;
  readonly notificationsLeasePeriodMs: number;
  readonly notificationsLeaseCount: number;
  readonly notificationsFetchIntervalMs: number;
}

/** The notifications options, in `--help` order (the reference's). */
export const NOTIFICATIONS_OPTIONS: readonly OptionDefinition<keyof NotificationsValues>[] = [
  {
    key: 'notificationsMethod',
    name: 'Notifications: Method',
    flag: 'notifications-method',
    env: 'COVE_NOTIFICATIONS_METHOD',
    yaml: 'method',
    group: NOTIFICATIONS_GROUP,
    configPath: ['notifications', 'method'],
    kind: 'string',
    default: 'smtp',
    description:
      'How notifications go out besides the inbox: smtp (needs --email-smtp-host and --email-smtp-from) or webhook (needs --notifications-webhook-endpoint).',
  },
  {
    key: 'notificationsDispatchTimeoutMs',
    name: 'Notifications: Dispatch Timeout',
    flag: 'notifications-dispatch-timeout',
    env: 'COVE_NOTIFICATIONS_DISPATCH_TIMEOUT',
    yaml: 'dispatchTimeout',
    group: NOTIFICATIONS_GROUP,
    configPath: ['notifications', 'dispatch_timeout'],
    kind: 'duration',
    default: '1m',
    description: 'How long one sending may take before it counts as failed and is tried again later.',
  },
  {
    key: 'notificationsWebhookEndpoint',
    name: 'Notifications: Webhook: Endpoint',
    flag: 'notifications-webhook-endpoint',
    env: 'COVE_NOTIFICATIONS_WEBHOOK_ENDPOINT',
    yaml: 'webhookEndpoint',
    group: NOTIFICATIONS_GROUP,
    configPath: ['notifications', 'webhook', 'endpoint'],
    kind: 'string',
    default: '',
    description: 'The URL each notification is POSTed to as JSON, when the method is webhook (or a kind is sent by webhook).',
  },
  {
    key: 'notificationsWebhookSecret',
    name: 'Notifications: Webhook: Secret',
    flag: 'notifications-webhook-secret',
    env: 'COVE_NOTIFICATIONS_WEBHOOK_SECRET',
    yaml: 'webhookSecret',
    group: NOTIFICATIONS_GROUP,
    configPath: ['notifications', 'webhook', 'secret'],
    kind: 'string',
    default: '',
    secret: true,
    description: 'The key of the HMAC-SHA256 signature of each webhook body, sent in the X-Cove-Signature header.',
  },
  {
    key: 'notificationsInboxEnabled',
    name: 'Notifications: Inbox: Enabled',
    flag: 'notifications-inbox-enabled',
    env: 'COVE_NOTIFICATIONS_INBOX_ENABLED',
    yaml: 'inboxEnabled',
    group: NOTIFICATIONS_GROUP,
    configPath: ['notifications', 'inbox', 'enabled'],
    kind: 'bool',
    default: 'true',
    description: 'Also put every notification in the in-app inbox of its user.',
  },
  {
    key: 'notificationsMaxSendAttempts',
    name: 'Notifications: Max Send Attempts',
    flag: 'notifications-max-send-attempts',
    env: 'COVE_NOTIFICATIONS_MAX_SEND_ATTEMPTS',
    yaml: 'maxSendAttempts',
    group: NOTIFICATIONS_GROUP,
    configPath: ['notifications', 'max_send_attempts'],
    kind: 'int',
    default: '5',
    description: 'How many times a message is tried before it is kept as failed for good.',
  },
  {
    key: 'notificationsRetryIntervalMs',
    name: 'Notifications: Retry Interval',
    flag: 'notifications-retry-interval',
    env: 'COVE_NOTIFICATIONS_RETRY_INTERVAL',
    yaml: 'retryInterval',
    group: NOTIFICATIONS_GROUP,
    configPath: ['notifications', 'retry_interval'],
    kind: 'duration',
    default: '5m',
    hidden: true,
    description: 'The wait before the first retry of a failed message; each further retry waits twice as long as the one before.',
  },
  {
    key: 'notificationsLeasePeriodMs',
    name: 'Notifications: Lease Period',
    flag: 'notifications-lease-period',
    env: 'COVE_NOTIFICATIONS_LEASE_PERIOD',
    yaml: 'leasePeriod',
    group: NOTIFICATIONS_GROUP,
    configPath: ['notifications', 'lease_period'],
    kind: 'duration',
    default: '2m',
    hidden: true,
    description:
      'How long a replica holds the messages it took to send; a replica that dies holding some leaves them to another once this has passed.',
  },
  {
    key: 'notificationsLeaseCount',
    name: 'Notifications: Lease Count',
    flag: 'notifications-lease-count',
    env: 'COVE_NOTIFICATIONS_LEASE_COUNT',
    yaml: 'leaseCount',
    group: NOTIFICATIONS_GROUP,
    configPath: ['notifications', 'lease_count'],
    kind: 'int',
    default: '20',
    hidden: true,
    description: 'How many messages a replica takes to send at each fetch.',
  },
  {
    key: 'notificationsFetchIntervalMs',
    name: 'Notifications: Fetch Interval',
    flag: 'notifications-fetch-interval',
    env: 'COVE_NOTIFICATIONS_FETCH_INTERVAL',
    yaml: 'fetchInterval',
    group: NOTIFICATIONS_GROUP,
    configPath: ['notifications', 'fetch_interval'],
    kind: 'duration',
    default: '15s',
    hidden: true,
    description: 'How often the queue is looked at for messages to send.',
  },
];

/** Refuses settings that would leave the notifier unable to work: refused at start, not at the first message. */
export function checkNotificationOptions(values: NotificationsValues): void {
  if (!(NOTIFICATION_DELIVERY_METHODS as readonly string[]).includes(values.notificationsMethod)) {
    throw new OptionError(
      `--notifications-method: "${values.notificationsMethod}" is not one of ${NOTIFICATION_DELIVERY_METHODS.join(', ')}`,
    );
  }
  const endpoint = values.notificationsWebhookEndpoint;
  if (endpoint !== '' && !/^https?:\/\/[^\s]+$/.test(endpoint)) {
    throw new OptionError(`--notifications-webhook-endpoint: "${endpoint}" is not an http or https URL`);
  }
  if (values.notificationsMaxSendAttempts < 1) throw new OptionError('--notifications-max-send-attempts must be at least 1');
  if (values.notificationsLeaseCount < 1) throw new OptionError('--notifications-lease-count must be at least 1');
  if (values.notificationsFetchIntervalMs <= 0) throw new OptionError('--notifications-fetch-interval must be longer than zero');
}
