import { sql, type Kysely } from 'kysely';
import { SchemaTooNewError } from '../lib/errors.js';
import { VERSION } from '../lib/version.js';
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
 * Brings the schema up to this binary's version, every pending migration in one transaction: a
 * migration that fails leaves the database as it was before the first of them. Refuses a database
 * that a newer binary has migrated past what this one knows. On PostgreSQL an advisory lock keeps
 * replicas starting together from racing. Records this binary's release as one that has served the
 * database, so that a later upgrade can name the release it upgraded from.
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
  // Outside the numbered migrations: an older binary, which knows none of this, leaves it alone.
  await db.schema
    .createTable('cove_releases')
    .ifNotExists()
    .addColumn('version', 'text', (c) => c.primaryKey())
    .addColumn('first_started_at', 'text', (c) => c.notNull())
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

  const pending = migrations.filter((migration) => migration.version > current);
  // SQLite and PostgreSQL both change their schema transactionally, so one transaction covers it all.
  await db.transaction().execute(async (trx) => {
    for (const migration of pending) {
      await migration.up(trx as unknown as Kysely<unknown>, dialect);
      await trx
        .insertInto('cove_migrations')
        .values({ version: migration.version, name: migration.name, applied_at: new Date().toISOString() })
        .execute();
    }
    await sql`insert into cove_releases (version, first_started_at) values (${VERSION}, ${new Date().toISOString()}) on conflict (version) do nothing`.execute(
      trx,
    );
  });
  return { from: current, to: Math.max(current, latest), applied: pending.map((migration) => `${migration.version}-${migration.name}`) };
}
