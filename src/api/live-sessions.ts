import type { Authenticated } from '../domain/authentication.js';
import { HttpProblem, NotAuthorizedError, NotFoundError } from '../lib/errors.js';
import type { SessionInvalidation } from '../store/store.js';
import type { ApiContext } from './context.js';
import { authenticateToken, type RequestAuth } from './plugins/authentication.js';

/** One connection a user's session holds open: a terminal, a stream, a watch, an app socket. */
export interface LiveConnection {
  /**
   * Decides again whether the caller, as the session is now, may keep what the connection opened:
   * throws (or answers false) when not. Given the caller's store as it is now.
   */
  readonly authorize: (auth: RequestAuth) => unknown;
  /** Ends the connection at once, saying why. */
  readonly end: (reason: string) => void;
}

/** The session a connection was opened with: the token it presented, and who that was then. */
export interface LiveSession {
  readonly token: string;
  readonly ipAddress: string;
  readonly opened: Authenticated;
}

/** The connections of one API key, re-checked together: one re-authentication serves them all. */
interface KeyConnections {
  readonly keyId: string;
  readonly userId: string;
  readonly session: LiveSession;
  readonly connections: Set<LiveConnection>;
  /** The re-check under way, if any; `again` asks for one more after it (a newer write may have come). */
  checking: Promise<void> | undefined;
  again: boolean;
}

/** How often a re-check that failed for another reason than a refusal (the database) is tried. */
const CHECK_ATTEMPTS = 4;
const RETRY_MS = 250;
/** A WebSocket close code that says "your session or access ended", as HTTP's 401 does. */
export const SESSION_ENDED_CLOSE_CODE = 4401;

/**
 * The connections opened with users' sessions on this daemon, by API key. Ending access (a key
 * deleted, logout, a password change, a suspension, a deletion, a role or membership change) goes
 * through `Store.invalidateSessions`, which every replica hears; each then re-authenticates the
 * affected keys' tokens from the database and re-authorizes what their connections opened, and
 * ends those that no longer pass. Connections of other keys are not touched.
 */
export class LiveSessions {
  readonly #context: ApiContext;
  readonly #byKey = new Map<string, KeyConnections>();

  constructor(context: ApiContext) {
    this.#context = context;
    context.store.onSessionsInvalidated((target) => this.#invalidated(target));
  }

  /** How many connections are recorded, for tests and the debug pages. */
  get size(): number {
    let count = 0;
    for (const entry of this.#byKey.values()) count += entry.connections.size;
    return count;
  }

  /**
   * Records a connection; returns the function that forgets it (call it when the connection ends).
   * The session is checked once more now: access may have ended between the request's
   * authentication and this, and that invalidation was heard before the connection was recorded.
   */
  open(session: LiveSession, connection: LiveConnection): () => void {
    const keyId = session.opened.apiKey.id;
    let entry = this.#byKey.get(keyId);
    if (!entry) {
      entry = { keyId, userId: session.opened.user.id, session, connections: new Set(), checking: undefined, again: false };
      this.#byKey.set(keyId, entry);
    }
    entry.connections.add(connection);
    const owner = entry;
    void this.#checkOne(session, connection);
    return () => {
      owner.connections.delete(connection);
      if (owner.connections.size === 0 && this.#byKey.get(keyId) === owner) this.#byKey.delete(keyId);
    };
  }

  #invalidated(target: SessionInvalidation): void {
    for (const entry of this.#byKey.values()) {
      if (target === '*' || entry.keyId === target.keyId || entry.userId === target.userId) void this.#check(entry);
    }
  }

  /** Re-checks a key's connections, one re-check at a time; a request meanwhile runs once more after it. */
  #check(entry: KeyConnections): Promise<void> {
    if (entry.checking) {
      entry.again = true;
      return entry.checking;
    }
    const run = async (): Promise<void> => {
      do {
        entry.again = false;
        await this.#checkKey(entry);
      } while (entry.again && entry.connections.size > 0);
    };
    entry.checking = run().finally(() => (entry.checking = undefined));
    return entry.checking;
  }

  async #checkKey(entry: KeyConnections): Promise<void> {
    const auth = await this.#reauthenticate(entry.session);
    if (typeof auth === 'string') {
      for (const connection of [...entry.connections]) end(connection, auth);
      return;
    }
    await Promise.all([...entry.connections].map((connection) => this.#reauthorize(connection, auth)));
  }

  /** The check of a connection just recorded: what the cache holds, authorized again only if the subject changed. */
  async #checkOne(session: LiveSession, connection: LiveConnection): Promise<void> {
    const auth = await this.#reauthenticate(session, { fromCache: true });
    if (typeof auth === 'string') end(connection, auth);
    else if (auth.subject !== session.opened.subject) await this.#reauthorize(connection, auth);
  }

  /**
   * The session's caller as stored now, or why the session no longer stands. Read from the
   * database (the cached session was dropped with the invalidation that asked for this), unless
   * `fromCache` allows what a request would be answered from.
   */
  async #reauthenticate(session: LiveSession, options: { readonly fromCache?: boolean } = {}): Promise<RequestAuth | string> {
    const context = this.#context;
    for (let attempt = 1; ; attempt++) {
      try {
        if (!options.fromCache) context.store.sessions.invalidate({ keyId: session.opened.apiKey.id });
        const authenticated = await authenticateToken(context, session.token, session.ipAddress);
        return { ...authenticated, store: context.store.as(authenticated.subject) };
      } catch (error) {
        if (refusal(error)) return `The session ended: ${(error as HttpProblem).detail ?? (error as Error).message}`;
        // The database failing is not the session ending, but a session that cannot be
        // checked after its access changed is not kept either.
        if (attempt >= CHECK_ATTEMPTS) return 'The session could not be checked again.';
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS * attempt).unref());
      }
    }
  }

  async #reauthorize(connection: LiveConnection, auth: RequestAuth): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        if ((await connection.authorize(auth)) === false) end(connection, 'Access to what this connection opened has ended.');
        return;
      } catch (error) {
        if (refusal(error) || attempt >= CHECK_ATTEMPTS) {
          end(connection, 'Access to what this connection opened has ended.');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS * attempt).unref());
      }
    }
  }
}

/** Whether an error says no (the session or the access is gone), rather than that asking failed. */
function refusal(error: unknown): boolean {
  if (error instanceof NotFoundError || error instanceof NotAuthorizedError) return true;
  return error instanceof HttpProblem && error.status >= 400 && error.status < 500;
}

function end(connection: LiveConnection, reason: string): void {
  try {
    connection.end(reason);
  } catch {
    // Ending is best effort: a connection already gone has nothing more to end.
  }
}

/** The registry of each daemon's API, made with it on first use. */
const registries = new WeakMap<ApiContext, LiveSessions>();

/** The live connections of `context`'s daemon. */
export function liveSessionsOf(context: ApiContext): LiveSessions {
  let registry = registries.get(context);
  if (!registry) {
    registry = new LiveSessions(context);
    registries.set(context, registry);
  }
  return registry;
}
