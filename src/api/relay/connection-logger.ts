import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../../lib/random.js';
import type { ConnectionType } from '../../sdk/wire/index.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import type { WorkspaceRow } from '../../store/rows.js';
import type { Clock } from '../../lib/clock.js';

/** What is known of a connection when it opens. */
export interface ConnectionOpening {
  readonly type: ConnectionType;
  readonly workspace: Pick<WorkspaceRow, 'id' | 'name' | 'owner_id' | 'organization_id'>;
  readonly agentName: string;
  /** Null for an unauthenticated request to a public app or port. */
  readonly userId: string | null;
  readonly ip: string;
  readonly userAgent: string;
  /** The app's slug or the port, for web connections. */
  readonly slugOrPort?: string;
  /** Groups the rows of one session; a new id when not given. */
  readonly connectionId?: string;
}

/** How a connection ended. */
export interface ConnectionEnding {
  readonly reason: string;
  /** The exit status of a session, or the HTTP status of a web connection; null when there is none. */
  readonly code?: number | null;
}

/**
 * An open connection: the relay adds the bytes as they pass (in memory only, so the stream never
 * waits on the database), and `close` writes them with the end once.
 */
export interface LoggedConnection {
  readonly id: string;
  bytesToWorkspace: number;
  bytesFromWorkspace: number;
  /** The status to write if `close` names none (an app's HTTP status, known when it answers). */
  code: number | null;
  close(ending: ConnectionEnding): void;
}

/** A row whose end is written when a restarted replica finds it still open. */
export const DAEMON_RESTARTED = 'daemon restarted';

/**
 * Writes the connection log of this replica: one row when a connection opens, its end and byte
 * counts when it closes. Writes run in the background, a failed one is logged and never reaches
 * the connection; `flush` waits for those under way (before the database closes).
 */
export class ConnectionLogger {
  readonly #pending = new Set<Promise<unknown>>();
  /** The connections open through this replica, whose bytes so far are only in memory. */
  readonly #live = new Map<string, LoggedConnection>();

  constructor(
    private readonly store: AuthorizedStore,
    private readonly replicaId: string,
    private readonly clock: Clock,
  ) {}

  /** Closes the rows this replica's previous run left open: it died before their ends were written. */
  async closeLeftOpen(): Promise<number> {
    return this.store.connectionLogs.closeLeftOpen(this.replicaId, this.clock.now().toISOString(), DAEMON_RESTARTED);
  }

  /** Records a connection that opened; the returned handle counts its bytes and closes it once. */
  open(opening: ConnectionOpening, log: FastifyBaseLogger): LoggedConnection {
    const id = newId();
    const opened = this.#background(
      this.store.connectionLogs.open({
        id,
        connect_time: this.clock.now().toISOString(),
        organization_id: opening.workspace.organization_id,
        workspace_owner_id: opening.workspace.owner_id,
        workspace_id: opening.workspace.id,
        workspace_name: opening.workspace.name,
        agent_name: opening.agentName,
        type: opening.type,
        ip: opening.ip,
        user_id: opening.userId,
        user_agent: opening.userAgent.slice(0, 512),
        slug_or_port: opening.slugOrPort ?? '',
        code: null,
        connection_id: opening.connectionId ?? id,
        disconnect_time: null,
        disconnect_reason: '',
        bytes_to_workspace: 0,
        bytes_from_workspace: 0,
        replica_id: this.replicaId,
      }),
      log,
      id,
    );
    let closed = false;
    const connection: LoggedConnection = {
      id,
      bytesToWorkspace: 0,
      bytesFromWorkspace: 0,
      code: null,
      close: (ending) => {
        if (closed) return;
        closed = true;
        this.#live.delete(id);
        const end = {
          disconnect_time: this.clock.now().toISOString(),
          disconnect_reason: ending.reason.slice(0, 256),
          code: ending.code ?? connection.code,
          bytes_to_workspace: connection.bytesToWorkspace,
          bytes_from_workspace: connection.bytesFromWorkspace,
        };
        // The end is written after the row: a row that failed to be written has no end to take.
        this.#background(
          opened.then((ok) => (ok ? this.store.connectionLogs.close(id, end) : undefined)),
          log,
          id,
        );
      },
    };
    this.#live.set(id, connection);
    return connection;
  }

  /** An open connection of this replica by its row's id: its bytes and status so far, which its row gets only at the end. */
  live(id: string): Pick<LoggedConnection, 'bytesToWorkspace' | 'bytesFromWorkspace' | 'code'> | undefined {
    return this.#live.get(id);
  }

  /** Waits for the writes under way. */
  async flush(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  /** Runs a write in the background; resolves true when it succeeded, never rejects. */
  #background(write: Promise<unknown>, log: FastifyBaseLogger, id: string): Promise<boolean> {
    const done = write.then(
      () => true,
      (error: unknown) => {
        log.warn({ err: error, connection_log: id }, 'could not write the connection log');
        return false;
      },
    );
    this.#pending.add(done);
    void done.finally(() => this.#pending.delete(done));
    return done;
  }
}
