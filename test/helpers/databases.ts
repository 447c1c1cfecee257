import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DatabaseTarget } from '../../src/store/database.js';

/** The PostgreSQL server tests may use, if any. */
export const PG_URL = process.env['COVE_TEST_PG_URL'];

/** Which databases a store test runs on: SQLite always, PostgreSQL whenever it is configured. */
export const TEST_DIALECTS: readonly ('sqlite' | 'postgres')[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/** A database for one test, and how to throw it away. */
export interface TestDatabase {
  readonly target: DatabaseTarget;
  readonly dataDir: string;
  drop(): Promise<void>;
}

/** A fresh, empty database: a new SQLite file in a temporary directory, or a new PostgreSQL database. */
export async function createTestDatabase(kind: 'sqlite' | 'postgres'): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cove-test-'));
  if (kind === 'sqlite') {
    return {
      target: { kind: 'sqlite', file: join(dataDir, 'cove.db') },
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  if (!PG_URL) throw new Error('COVE_TEST_PG_URL is not set');
  const name = `cove_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    target: { kind: 'postgres', url: url.toString() },
    dataDir,
    drop: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
