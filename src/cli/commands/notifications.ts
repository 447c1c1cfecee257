import type { NotificationMessage } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { stringOption } from './templates-common.js';

const MESSAGE_COLUMNS = [
  { heading: 'created', value: (m: NotificationMessage) => m.created_at },
  { heading: 'kind', value: (m: NotificationMessage) => m.template_name || m.template_id },
  { heading: 'user', value: (m: NotificationMessage) => m.username || m.user_id },
  { heading: 'method', value: (m: NotificationMessage) => m.method },
  { heading: 'status', value: (m: NotificationMessage) => m.status },
  { heading: 'attempts', value: (m: NotificationMessage) => String(m.attempt_count) },
  { heading: 'reason', value: (m: NotificationMessage) => m.status_reason },
  { heading: 'id', value: (m: NotificationMessage) => m.id, hidden: true },
  { heading: 'title', value: (m: NotificationMessage) => m.title, hidden: true },
  { heading: 'next retry', value: (m: NotificationMessage) => m.next_retry_after ?? '', hidden: true },
  { heading: 'created by', value: (m: NotificationMessage) => m.created_by, hidden: true },
  { heading: 'updated', value: (m: NotificationMessage) => m.updated_at, hidden: true },
];

/** Pauses or resumes sending, and says so. */
async function setPaused(context: CommandContext, paused: boolean): Promise<void> {
  await (await context.client()).updateNotificationsSettings({ notifier_paused: paused });
  if (context.json) return printJson(context.io, { notifier_paused: paused });
  context.say(paused ? 'Notifications are paused: messages stay queued until they are resumed.' : 'Notifications are resumed.');
}

/** `cove notifications`: pause and resume sending, send a test, list the queue. */
export const notificationsCommand: CommandSpec = {
  name: 'notifications',
  aliases: ['notification'],
  summary: 'Pause, resume and test notifications, and list the queue',
  subcommands: [
    {
      name: 'pause',
      summary: 'Pause sending notifications (they are queued meanwhile)',
      async run(context) {
        await setPaused(context, true);
      },
    },
    {
      name: 'resume',
      summary: 'Resume sending notifications',
      async run(context) {
        await setPaused(context, false);
      },
    },
    {
      name: 'test',
      summary: 'Send a test notification to yourself by every configured method',
      async run(context) {
        await (await context.client()).testNotification();
        if (context.json) return printJson(context.io, { sent: true });
        context.say('A test notification was queued for you by every configured method: see "cove notifications list".');
      },
    },
    {
      name: 'list',
      aliases: ['ls'],
      summary: "List the queue's newest messages with their status, attempts and why they failed",
      options: [
        {
          flags: '--status <status>',
          description: 'Only messages of this status: pending, leased, sent, temporary_failure, permanent_failure',
        },
        { flags: '--limit <n>', description: 'How many messages to list (at most 1000)', default: '50' },
      ],
      columns: MESSAGE_COLUMNS,
      examples: ['cove notifications list', 'cove notifications list --status permanent_failure -c kind,user,reason'],
      async run(context, _args, options) {
        const limitText = stringOption(options, 'limit') ?? '50';
        if (!/^\d+$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 1000)
          throw new CliError(`--limit takes a whole number from 1 to 1000, not "${limitText}".`);
        const status = stringOption(options, 'status');
        const messages = await (await context.client()).notificationMessages({ ...(status ? { status } : {}), limit: Number(limitText) });
        if (messages.length === 0 && !context.json) {
          context.say('No notifications are queued.');
          return;
        }
        context.printData(messages, MESSAGE_COLUMNS);
      },
    },
  ],
};
