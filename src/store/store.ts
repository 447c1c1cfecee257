import { CompiledQuery, type Kysely } from 'kysely';
import type { Clock } from '../lib/clock.js';
import { EnabledFeatures } from '../lib/enabled-features.js';
import type { Subject } from '../rbac/index.js';
import { AgentAuthCache, type AgentAuthInvalidation } from './agent-auth-cache.js';
import { AgentLogWriter } from './agent-log-writer.js';
import type { AuditRequest } from './audit/audit-request.js';
import { AuthorizedStore } from './authorized-store.js';
import { traceQuery } from './query-spans.js';
import { openDatabase, type DatabaseTarget, type DialectName } from './database.js';
import type { EventExport } from './event-export.js';
import { migrate, type MigrationResult } from './migrate.js';
import { PostgresPubSub } from './pg-pubsub.js';
import { MemoryPubSub, type PubSub } from './pubsub.js';
import type { Database } from './schema.js';
import { SessionCache } from './session-cache.js';
import { TemplateStatisticsCache } from './template-statistics-cache.js';
import type { SessionInvalidation, StoreServices } from './store-services.js';
import { PLAINTEXT_TOKENS, type TokenCipher } from './token-cipher.js';

const SESSION_CHANNEL = 'sessions:invalidate';
const SESSION_CACHE_TTL_MS = 60_000;
const AGENT_AUTH_CHANNEL = 'agent_auths:invalidate';
const AGENT_AUTH_CACHE_TTL_MS = 60_000;

export type { SessionInvalidation } from './store-services.js';

/**
 * What the layers above the store hold of it: everything but the raw database handle and the log
 * writer that uses it, so that a read or write from `src/api` or `src/domain` can only go through
 * `as(subject)`.
 */
export type StoreHandle = Omit<Store, 'db' | 'urgentDb' | 'agentLogWriter'>;

/**
 * The database, its pubsub and the clock, opened once per daemon. Its `db` is the unrestricted
 * handle that only named system work uses (authentication, first start, background workers);
 * request handling goes through `as(subject)`.
 */
export class Store implements StoreServices {
  readonly db: Kysely<Database>;
  /** `db` for work that finishes what is already under way (see AuthorizedStore.urgent); raw like `db`. */
  readonly urgentDb: Kysely<Database>;
  readonly dialect: DialectName;
  readonly pubsub: PubSub;
  readonly clock: Clock;
  readonly sessions = new SessionCache(SESSION_CACHE_TTL_MS);
  /** Templates' use figures for their answers, dropped when this replica changes them (see TemplateStatisticsCache). */
  readonly templateStatistics = new TemplateStatisticsCache();
  readonly agentAuths = new AgentAuthCache(AGENT_AUTH_CACHE_TTL_MS);
  /** Writes agents' log batches for the authorizing store, which checks them first; raw like `db`. */
  readonly agentLogWriter: AgentLogWriter;
  /** The licensed features in effect, kept current by the daemon's entitlements. */
  readonly features = new EnabledFeatures();
  /** How OAuth tokens are kept at rest: as they are until the daemon installs its keys' cipher. */
  tokenCipher: TokenCipher = PLAINTEXT_TOKENS;
  /** Where committed audit and connection events are also written: nowhere until the daemon installs its export. */
  eventExport: EventExport | undefined;
  readonly #sessionListeners = new Set<(target: SessionInvalidation) => void>();
  #stopListening: (() => Promise<void>)[] = [];
  /** Told how long each query took, in milliseconds, once someone listens (the Prometheus metrics). */
  onQueryDuration: ((ms: number, failed: boolean) => void) | undefined;

  private constructor(db: Kysely<Database>, urgentDb: Kysely<Database>, dialect: DialectName, pubsub: PubSub, clock: Clock) {
    this.db = db;
    this.urgentDb = urgentDb;
    this.dialect = dialect;
    this.pubsub = pubsub;
    this.clock = clock;
    this.agentLogWriter = new AgentLogWriter(db, dialect);
  }

  /** Opens the database and the matching pubsub. Does not migrate. */
  static async open(target: DatabaseTarget, clock: Clock): Promise<Store> {
    // Kysely reports every query's duration; the store passes it on only when someone listens.
    let store: Store | undefined;
    const { db, urgentDb, dialect } = await openDatabase(target, (event) => {
      store?.onQueryDuration?.(event.queryDurationMillis, event.level === 'error');
      traceQuery(event, target.kind);
    });
    try {
      // Notifications go out through the pool, side by side; the listening connection only listens.
      const notify = async (text: string, values: readonly string[]): Promise<void> => {
        await db.executeQuery(CompiledQuery.raw(text, [...values]));
      };
      const pubsub = target.kind === 'postgres' ? await PostgresPubSub.connect(target.url, notify) : new MemoryPubSub();
      const opened = new Store(db, urgentDb, dialect, pubsub, clock);
      store = opened;
      // Other replicas invalidate through the pubsub; on SQLite this only echoes our own messages.
      opened.#stopListening.push(
        await pubsub.subscribe(SESSION_CHANNEL, (payload) => {
          const target = payload === '*' ? '*' : (JSON.parse(payload) as { keyId?: string; userId?: string });
          opened.sessions.invalidate(target);
          // Heard once on every replica, this one included: each re-checks its own live connections.
          for (const listener of opened.#sessionListeners) listener(target);
        }),
        await pubsub.subscribe(AGENT_AUTH_CHANNEL, (payload) => {
          opened.agentAuths.invalidate(payload === '*' ? '*' : (JSON.parse(payload) as { workspaceId: string }));
        }),
      );
      // Invalidations other replicas sent while this one was not listening were missed: drop everything.
      const stopResume = pubsub.onResume(() => {
        opened.sessions.invalidate('*');
        opened.agentAuths.invalidate('*');
      });
      opened.#stopListening.push(async () => stopResume());
      return opened;
    } catch (error) {
      await db.destroy();
      throw error;
    }
  }

  /** Brings the schema to this binary's version; refuses a newer database. */
  migrate(): Promise<MigrationResult> {
    return migrate(this.db, this.dialect);
  }

  /** A view of the store that authorizes every read and write for `subject`. */
  as(subject: Subject, auditRequest?: AuditRequest): AuthorizedStore {
    return new AuthorizedStore(this, subject, this.db, auditRequest);
  }

  /** The current time as stored: ISO 8601 in UTC. */
  nowIso(): string {
    return this.clock.now().toISOString();
  }

  /**
   * Drops cached sessions after a write that changes what they may do, here and on every replica.
   * Call it after deleting a key or changing a user, their memberships or their roles: the
   * connections those sessions hold open (terminals, streams, watches) are re-checked too.
   */
  async invalidateSessions(target: SessionInvalidation): Promise<void> {
    this.sessions.invalidate(target);
    await this.pubsub.publish(SESSION_CHANNEL, target === '*' ? '*' : JSON.stringify(target));
  }

  /**
   * Calls `listener` after every invalidation of sessions, made here or on another replica, once
   * the cache has dropped them: live connections re-check their session then. Returns the function
   * that stops it.
   */
  onSessionsInvalidated(listener: (target: SessionInvalidation) => void): () => void {
    this.#sessionListeners.add(listener);
    return () => this.#sessionListeners.delete(listener);
  }

  /**
   * Runs a write that may change which agent a token names or whether it is current (an agent's
   * token, a workspace, its builds or their jobs): cached agents are not used while it runs, and
   * those of `target` are dropped when it ends, here and on every replica.
   */
  async changingAgentAuths<T>(target: AgentAuthInvalidation, write: () => Promise<T>): Promise<T> {
    const { value, announced } = await this.changingAgentAuthsAnnouncing(target, write);
    await announced;
    return value;
  }

  /**
   * As changingAgentAuths, but once the write is done the other replicas' invalidation is handed
   * back on its way rather than awaited: a caller with events of its own sends them alongside, in
   * the same NOTIFY. A write that fails still awaits it, then throws.
   */
  async changingAgentAuthsAnnouncing<T>(
    target: AgentAuthInvalidation,
    write: () => Promise<T>,
  ): Promise<{ readonly value: T; readonly announced: Promise<void> }> {
    this.agentAuths.beginChange(target);
    let value: T;
    try {
      value = await write();
    } catch (error) {
      this.agentAuths.endChange(target);
      await this.#announceAgentAuthChange(target);
      throw error;
    }
    this.agentAuths.endChange(target);
    return { value, announced: this.#announceAgentAuthChange(target) };
  }

  #announceAgentAuthChange(target: AgentAuthInvalidation): Promise<void> {
    return this.pubsub.publish(AGENT_AUTH_CHANNEL, target === '*' ? '*' : JSON.stringify({ workspaceId: target.workspaceId }));
  }

  async close(): Promise<void> {
    for (const stop of this.#stopListening) await stop();
    await this.pubsub.close();
    await this.db.destroy();
  }
}
