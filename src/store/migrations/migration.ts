import type { Kysely } from 'kysely';

/** One step of the schema. Versions are consecutive integers starting at 1. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  up(db: Kysely<unknown>): Promise<void>;
}
