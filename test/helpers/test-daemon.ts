import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { resolveOptions, type RawValues } from '../../src/domain/deployment-options.js';
import { pino, type Logger } from 'pino';
import { ManualClock } from '../../src/lib/clock.js';
import { hashPassword } from '../../src/domain/passwords.js';
import { newId } from '../../src/lib/random.js';
import { CoveClient } from '../../src/sdk/client.js';
import { createTestDatabase, RUN_DATABASE, type TestDatabase } from './databases.js';
import { stallReportLogger } from './stall-report.js';

/** A real daemon on a random loopback port, with its own database and a clock the test moves. */
export interface TestDaemon {
  readonly daemon: Daemon;
  readonly url: string;
  readonly clock: ManualClock;
  readonly database: TestDatabase;
  /** A client with no session. */
  readonly anonymous: CoveClient;
  close(): Promise<void>;
}

/** A strong password that passes the strength rules. */
export const STRONG_PASSWORD = 'Correct-Horse-Battery-9';

/** `cove login`'s flags that sign up the deployment's first user, with STRONG_PASSWORD. */
export function firstUserFlags(user: { readonly email: string; readonly username: string }): string[] {
  return ['--first-user-email', user.email, '--first-user-username', user.username, '--first-user-password', STRONG_PASSWORD];
}

/**
 * Starts the daemon in-process on 127.0.0.1:0. The database is a fresh SQLite file unless the test
 * asks for PostgreSQL (or COVE_TEST_DATABASE=postgres runs every daemon test there).
 */
export async function startTestDaemon(
  options: {
    readonly database?: 'sqlite' | 'postgres';
    readonly flags?: RawValues;
    readonly env?: Record<string, string>;
    readonly logger?: Logger;
    /** A built web dashboard to serve instead of the checkout's dist/web. */
    readonly dashboardDirectory?: string;
  } = {},
): Promise<TestDaemon> {
  // Migrated already: the daemon's start finds nothing to migrate, as on any start but the first.
  const database = await createTestDatabase(options.database ?? RUN_DATABASE, { migrated: true });
  const clock = new ManualClock(new Date('2026-01-05T10:00:00.000Z'));
  const flags: RawValues = {
    httpAddress: '127.0.0.1:0',
    dataDir: database.dataDir,
    provisionerDaemons: '0',
    ...(database.target.kind === 'postgres' ? { postgresUrl: database.target.url } : {}),
    ...options.flags,
  };
  let daemon: Daemon;
  // Unless the test reads the log itself, the last lines are kept for a stall report.
  const kept = stallReportLogger();
  try {
    // Inside: settings a test expects to be refused must not leave their database behind.
    const resolved = resolveOptions({ flags, env: options.env ?? {} });
    daemon = await startDaemon(resolved, {
      logger: options.logger ?? kept.logger,
      // The kept lines say which requests were last, and which never ended.
      ...(options.logger ? {} : { logRequests: true }),
      clock,
      ...(options.dashboardDirectory !== undefined ? { dashboardDirectory: options.dashboardDirectory } : {}),
    });
  } catch (error) {
    await database.drop();
    throw error;
  }
  const unwatch = kept.watch(daemon);
  return {
    daemon,
    url: daemon.url,
    clock,
    database,
    anonymous: new CoveClient({ url: daemon.url }),
    close: async () => {
      unwatch();
      await daemon.close();
      await database.drop();
    },
  };
}

/** Creates the first user (the owner) and returns a client signed in as them. */
export async function createOwner(test: TestDaemon): Promise<CoveClient> {
  await test.anonymous.createFirstUser({ email: 'owner@example.com', username: 'owner', password: STRONG_PASSWORD });
  const { session_token } = await test.anonymous.login('owner@example.com', STRONG_PASSWORD);
  return test.anonymous.withToken(session_token);
}

/**
 * STRONG_PASSWORD hashed once per test process: a hash at today's cost takes about a third of a
 * second of CPU, and tests make members by the dozen. Sharing one salt between test users is harmless.
 */
let strongPasswordHash: Promise<string> | undefined;

/**
 * Creates an active password user who belongs to the default organization and returns a client
 * signed in as them. Written straight to the database because user creation over the API
 * belongs to a later part of the surface; sign-in still goes through the API.
 */
export async function createMember(test: TestDaemon, username: string): Promise<CoveClient> {
  const now = test.clock.now().toISOString();
  const id = newId();
  const email = `${username}@example.com`;
  await test.daemon.store.db
    .insertInto('users')
    .values({
      id,
      email,
      username,
      name: '',
      avatar_url: '',
      hashed_password: await (strongPasswordHash ??= hashPassword(STRONG_PASSWORD)),
      login_type: 'password',
      status: 'active',
      rbac_roles: '[]',
      theme_preference: '',
      quiet_hours_schedule: '',
      hashed_one_time_passcode: null,
      one_time_passcode_expires_at: null,
      deleted: 0,
      created_at: now,
      updated_at: now,
      last_seen_at: now,
    })
    .execute();
  await test.daemon.store.db
    .insertInto('organization_members')
    .values({ user_id: id, organization_id: test.daemon.identity.defaultOrganization.id, roles: '[]', created_at: now, updated_at: now })
    .execute();
  const { session_token } = await test.anonymous.login(email, STRONG_PASSWORD);
  return test.anonymous.withToken(session_token);
}

/** A logger that keeps every entry in memory, for tests that check what the daemon logs. */
export function capturingLogger(): { readonly logger: Logger; readonly lines: () => string[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines: () => [...lines] };
}
