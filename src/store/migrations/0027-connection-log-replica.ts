import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Which replica relayed each connection, so that a replica starting again closes the rows its
 * previous run left open (it died before their ends were written) and none of another replica's,
 * whose connections may still be open.
 */
export const connectionLogReplicaMigration: Migration = {
  version: 27,
  name: 'connection-log-replica',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('connection_logs')
      .addColumn('replica_id', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema.createIndex('connection_logs_open').on('connection_logs').columns(['replica_id', 'disconnect_time']).execute();
  },
};
