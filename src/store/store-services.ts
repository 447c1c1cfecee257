import type { Kysely } from 'kysely';
import type { Clock } from '../lib/clock.js';
import type { AgentAuthCache, AgentAuthInvalidation } from './agent-auth-cache.js';
import type { AgentLogWriter } from './agent-log-writer.js';
import type { DialectName } from './database.js';
import type { EventExport } from './event-export.js';
import type { Database } from './schema.js';
import type { SessionCache } from './session-cache.js';
import type { TokenCipher } from './token-cipher.js';
import type { TemplateStatisticsCache } from './template-statistics-cache.js';

/** Whose sessions an invalidation names: one key, every key of one user, or (`*`) everyone's. */
export type SessionInvalidation = { readonly keyId?: string; readonly userId?: string } | '*';

/**
 * What the authorizing store uses of the opened store: the database, the caches it keeps current
 * and the announcements a write makes. Declared apart from `Store`, which makes authorizing stores,
 * so that neither module needs the other's.
 */
export interface StoreServices {
  readonly db: Kysely<Database>;
  /** `db` for work that finishes what is already under way; see AuthorizedStore.urgent. */
  readonly urgentDb: Kysely<Database>;
  readonly dialect: DialectName;
  readonly clock: Clock;
  readonly sessions: SessionCache;
  readonly templateStatistics: TemplateStatisticsCache;
  readonly agentAuths: AgentAuthCache;
  readonly agentLogWriter: AgentLogWriter;
  /** Seals OAuth tokens before they are written and opens them after they are read. */
  readonly tokenCipher: TokenCipher;
  /** Where committed audit and connection events are also written; absent when nobody collects them. */
  readonly eventExport?: EventExport | undefined;
  /** The current time as stored: ISO 8601 in UTC. */
  nowIso(): string;
  /** Drops cached sessions after a write that changes what they may do, here and on every replica. */
  invalidateSessions(target: SessionInvalidation): Promise<void>;
  /** Runs a write that may change which agent a token names or whether it is current. */
  changingAgentAuths<T>(target: AgentAuthInvalidation, write: () => Promise<T>): Promise<T>;
  /** As changingAgentAuths, handing back the other replicas' invalidation rather than awaiting it. */
  changingAgentAuthsAnnouncing<T>(
    target: AgentAuthInvalidation,
    write: () => Promise<T>,
  ): Promise<{ readonly value: T; readonly announced: Promise<void> }>;
}
