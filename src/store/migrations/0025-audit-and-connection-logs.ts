import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Who did what: the audit log (one row per state-changing request, sign-in and sign-out, written
 * in the transaction of the change it records) and the connection log (one row per terminal, SSH
 * session, port-forward and app session through the relay, finished when it ends).
 */
export const auditAndConnectionLogsMigration: Migration = {
  version: 25,
  name: 'audit-and-connection-logs',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('audit_logs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      // ISO 8601.
      .addColumn('time', 'text', (c) => c.notNull())
      // Null for a request nobody signed in to (a failed sign-in of an unknown name) and for the system's own work.
      .addColumn('user_id', 'text')
      // Empty for a resource outside any organization (users, licenses, the deployment's settings).
      .addColumn('organization_id', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('ip', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('user_agent', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('resource_type', 'text', (c) => c.notNull())
      // Empty when the request named no resource that exists (a refused create).
      .addColumn('resource_id', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('resource_target', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('resource_icon', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('action', 'text', (c) => c.notNull())
      // JSON object: field -> { old, new, secret }, secrets' values left out.
      .addColumn('diff', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('status_code', 'integer', (c) => c.notNull())
      // JSON object of strings: the build reason and such.
      .addColumn('additional_fields', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('request_id', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema.createIndex('audit_logs_time').on('audit_logs').columns(['time', 'id']).execute();
    await db.schema.createIndex('audit_logs_resource').on('audit_logs').columns(['resource_type', 'resource_id']).execute();
    await db.schema.createIndex('audit_logs_user_id').on('audit_logs').column('user_id').execute();
    await db.schema.createIndex('audit_logs_request_id').on('audit_logs').column('request_id').execute();

    await db.schema
      .createTable('connection_logs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('connect_time', 'text', (c) => c.notNull())
      .addColumn('organization_id', 'text', (c) => c.notNull())
      .addColumn('workspace_owner_id', 'text', (c) => c.notNull())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('workspace_name', 'text', (c) => c.notNull())
      .addColumn('agent_name', 'text', (c) => c.notNull())
      // ssh, reconnecting_pty, port_forwarding, workspace_app, vscode, jetbrains.
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('ip', 'text', (c) => c.notNull().defaultTo(''))
      // The user who connected; null for an unauthenticated request to a public app or port.
      .addColumn('user_id', 'text')
      .addColumn('user_agent', 'text', (c) => c.notNull().defaultTo(''))
      // The app's slug or the port, for web connections.
      .addColumn('slug_or_port', 'text', (c) => c.notNull().defaultTo(''))
      // The HTTP status of a web connection, or the exit status of a session that had one.
      .addColumn('code', 'integer')
      // Groups a session's rows; the session's own id where it has one.
      .addColumn('connection_id', 'text', (c) => c.notNull())
      // Null while the connection is open.
      .addColumn('disconnect_time', 'text')
      .addColumn('disconnect_reason', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('bytes_to_workspace', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('bytes_from_workspace', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('connection_logs_connect_time').on('connection_logs').columns(['connect_time', 'id']).execute();
    await db.schema.createIndex('connection_logs_workspace_id').on('connection_logs').column('workspace_id').execute();
    await db.schema.createIndex('connection_logs_connection_id').on('connection_logs').column('connection_id').execute();
  },
};
