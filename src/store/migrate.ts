import { sql, type Kysely } from 'kysely';
import { SchemaTooNewError } from '../lib/errors.js';
import type { DialectName } from './database.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import type { Database } from './schema.js';

/** What a migration run did. */
export interface MigrationResult {
  readonly from: number;
  readonly to: number;
  readonly applied: readonly string[];
}

/** The schema version this binary writes. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

// Any constant works; it only has to be the same for every replica.
const PG_MIGRATION_LOCK = 0x636f7665;

/**
 * Brings the schema up to this binary's version, one transaction per migration. Refuses a
 * database that a newer binary has migrated past what this one knows. On PostgreSQL an advisory
 * lock keeps replicas starting together from racing.
 */
export async function migrate(
  db: Kysely<Database>,
  dialect: DialectName,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrationResult> {
  await db.schema
    .createTable('cove_migrations')
    .ifNotExists()
    .addColumn('version', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('applied_at', 'text', (c) => c.notNull())
    .execute();

  return db.connection().execute(async (conn) => {
    if (dialect === 'postgres') await sql`select pg_advisory_lock(${PG_MIGRATION_LOCK})`.execute(conn);
    try {
      return await applyPending(conn, dialect, migrations);
    } finally {
      if (dialect === 'postgres') await sql`select pg_advisory_unlock(${PG_MIGRATION_LOCK})`.execute(conn);
    }
  });
}

async function applyPending(db: Kysely<Database>, dialect: DialectName, migrations: readonly Migration[]): Promise<MigrationResult> {
  const latest = migrations.at(-1)?.version ?? 0;
  const row = await db
    .selectFrom('cove_migrations')
    .select((eb) => eb.fn.max('version').as('version'))
    .executeTakeFirst();
  const current = Number(row?.version ?? 0);
  if (current > latest) throw new SchemaTooNewError(current, latest);

  const applied: string[] = [];
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    await db.transaction().execute(async (trx) => {
      await migration.up(trx as unknown as Kysely<unknown>, dialect);
      await trx
        .insertInto('cove_migrations')
        .values({ version: migration.version, name: migration.name, applied_at: new Date().toISOString() })
        .execute();
    });
    applied.push(`${migration.version}-${migration.name}`);
  }
  return { from: current, to: Math.max(current, latest), applied };
}
