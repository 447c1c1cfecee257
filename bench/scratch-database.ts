// A PostgreSQL database of a benchmark's own, made in the cluster that COVE_TEST_PG_URL names and
// dropped when the benchmark ends, so runs never share or leave tables behind.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A fresh database: its URL for `cove serve --postgres-url`, and how to drop it. */
export interface ScratchDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** Creates `cove_bench_<random>` through the administrative URL `adminUrl`. */
export async function createScratchDatabase(adminUrl: string): Promise<ScratchDatabase> {
  const name = `cove_bench_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
