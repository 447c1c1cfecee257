import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';

/** One step of the schema. Versions are consecutive integers starting at 1. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** `dialect` is for the few column types that differ, such as binary data and generated ids. */
  up(db: Kysely<unknown>, dialect: DialectName): Promise<void>;
}
