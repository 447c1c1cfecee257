import type { Migration } from './migration.js';
import { identityMigration } from './0001-identity.js';

/** Every migration this binary knows, in order. */
export const MIGRATIONS: readonly Migration[] = [identityMigration];

export type { Migration } from './migration.js';
