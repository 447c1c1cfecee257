import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Notifications: the durable queue of messages to send (one row per message and method, leased by
 * one replica at a time), users' preferences, the in-app inbox, deployment-wide method overrides
 * per template, and when each periodic report last went out. The templates themselves are code
 * (src/domain/notifications/catalogue.ts).
 */
export const notificationsMigration: Migration = {
  version: 26,
  name: 'notifications',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('notification_messages')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('template_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      // smtp, webhook or inbox.
      .addColumn('method', 'text', (c) => c.notNull())
      // pending, leased, sent, temporary_failure, permanent_failure, inhibited.
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
      .addColumn('status_reason', 'text', (c) => c.notNull().defaultTo(''))
      // Who queued it: the system job or event that did.
      .addColumn('created_by', 'text', (c) => c.notNull())
      // JSON: the rendered message's inputs (labels, data, the user's name and email, actions).
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
      // JSON array of ids the message is about (workspace, template, user).
      .addColumn('targets', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      // While set and in the future, one replica is sending the message.
      .addColumn('leased_until', 'text')
      .addColumn('next_retry_after', 'text')
      // The same event queued twice (two replicas, a retried job) is one message: unique per day.
      .addColumn('dedupe_hash', 'text', (c) => c.unique())
      .execute();
    await db.schema
      .createIndex('notification_messages_due')
      .on('notification_messages')
      .columns(['status', 'next_retry_after', 'created_at'])
      .execute();
    await db.schema.createIndex('notification_messages_user_id').on('notification_messages').column('user_id').execute();

    await db.schema
      .createTable('notification_preferences')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('template_id', 'text', (c) => c.notNull())
      .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('notification_preferences_pkey', ['user_id', 'template_id'])
      .execute();

    await db.schema
      .createTable('inbox_notifications')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('template_id', 'text', (c) => c.notNull())
      // JSON array of ids.
      .addColumn('targets', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('icon', 'text', (c) => c.notNull().defaultTo(''))
      // JSON array of { label, url }.
      .addColumn('actions', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('read_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('inbox_notifications_user_created')
      .on('inbox_notifications')
      .columns(['user_id', 'created_at', 'id'])
      .execute();

    await db.schema
      .createTable('notification_template_methods')
      .addColumn('template_id', 'text', (c) => c.primaryKey())
      // The method an operator chose for the template; the deployment's default when absent.
      .addColumn('method', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('notification_report_runs')
      .addColumn('template_id', 'text', (c) => c.primaryKey())
      .addColumn('last_generated_at', 'text', (c) => c.notNull())
      .execute();
  },
};
