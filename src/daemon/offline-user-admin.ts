import { existsSync } from 'node:fs';
import { bootstrapDeployment } from '../domain/bootstrap.js';
import { resolveOptions, type RawValues } from '../domain/deployment-options.js';
import { generatePassword } from '../domain/passwords.js';
import { createSiteAdmin, setUserPassword } from '../domain/site-admins.js';
import { systemClock } from '../lib/clock.js';
import { SYSTEM_SUBJECTS } from '../rbac/index.js';
import type { UserRow } from '../store/rows.js';
import { Store } from '../store/store.js';
import { databaseTarget } from './daemon.js';

/** The database could not be opened or brought up to date; the message says which and why. */
export class DatabaseUnavailableError extends Error {}

/** Where the database is, as `serve` reads it: `postgresUrl` and `dataDir` flags, else the environment, else the defaults. */
export interface DatabaseLocation {
  readonly flags: Pick<RawValues, 'postgresUrl' | 'dataDir'>;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A user the command made or changed, and the password it set when it chose one itself. */
export interface OfflineUserResult {
  readonly user: UserRow;
  readonly generatedPassword?: string;
}

/**
 * `cove server create-admin-user`: a site owner who belongs to every organization, written to the
 * database without a daemon. A missing password is generated and returned.
 */
export async function createAdminUser(
  location: DatabaseLocation,
  input: { readonly email: string; readonly username: string; readonly password?: string | undefined },
): Promise<OfflineUserResult> {
  const generated = input.password === undefined ? generatePassword() : undefined;
  return withOfflineStore(location, async (store) => {
    // Run from a shell on the database itself: no user is signed in, and perhaps none can be.
    const user = await createSiteAdmin(
      store.as(SYSTEM_SUBJECTS.siteAdminCreation),
      { email: input.email, username: input.username, password: input.password ?? generated ?? '' },
      store.clock.now(),
    );
    return { user, ...(generated ? { generatedPassword: generated } : {}) };
  });
}

/** `cove reset-password`: a new password for a user (generated when none is given), written to the database without a daemon. */
export async function resetUserPassword(
  location: DatabaseLocation,
  input: { readonly username: string; readonly password?: string | undefined },
): Promise<OfflineUserResult> {
  const generated = input.password === undefined ? generatePassword() : undefined;
  return withOfflineStore(location, async (store) => {
    // Run from a shell on the database itself, for a user who cannot sign in to change it.
    const user = await setUserPassword(
      store.as(SYSTEM_SUBJECTS.commandLinePasswordReset),
      input.username,
      input.password ?? generated ?? '',
    );
    return { user, ...(generated ? { generatedPassword: generated } : {}) };
  });
}

/**
 * Opens the database `serve` would use, migrates it and makes sure the deployment's identity
 * exists (as a first start does), runs `work`, and closes it. A SQLite file that does not exist is
 * refused rather than created: a mistyped data directory must not yield a new, empty deployment.
 */
export async function withOfflineStore<T>(location: DatabaseLocation, work: (store: Store) => Promise<T>): Promise<T> {
  const options = resolveOptions({ flags: location.flags, env: location.env });
  const target = databaseTarget(options);
  const where = target.kind === 'sqlite' ? target.file : target.url.replace(/(\/\/[^:/@]*):[^@/]*@/, '$1:[redacted]@');
  if (target.kind === 'sqlite' && !existsSync(target.file)) {
    throw new DatabaseUnavailableError(`There is no Cove database at ${where}.`);
  }
  let store: Store;
  try {
    store = await Store.open(target, systemClock);
  } catch (error) {
    throw new DatabaseUnavailableError(`Cannot open the database at ${where}: ${(error as Error).message}`);
  }
  try {
    try {
      await store.migrate();
      // The same first-start work `serve` does, so a database no daemon has started yet has its default organization.
      await bootstrapDeployment(store.as(SYSTEM_SUBJECTS.bootstrap), store.clock.now());
    } catch (error) {
      throw new DatabaseUnavailableError(`Cannot use the database at ${where}: ${(error as Error).message}`);
    }
    return await work(store);
  } finally {
    await store.close();
  }
}
