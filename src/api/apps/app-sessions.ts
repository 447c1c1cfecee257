import type { FastifyRequest } from 'fastify';
import type { ApiContext } from '../context.js';
import type { LoggedConnection } from '../relay/connection-logger.js';
import type { AppViewer } from './app-access.js';
import type { ResolvedApp } from './app-resolve.js';

/** An app session ends once no request of it has been under way for this long. */
export const APP_SESSION_IDLE_MS = 60_000;

interface OpenSession {
  readonly connection: LoggedConnection;
  /** Requests of the session under way now. */
  active: number;
  timer: NodeJS.Timeout | undefined;
}

/** Counts one request's bytes into its session's row, and says when the request is done. */
export interface AppSessionRequest {
  toApp(bytes: number): void;
  fromApp(bytes: number): void;
  /** The request is over; `status` is the app's HTTP status when it answered. */
  done(status: number | undefined): void;
}

/**
 * The connection log of workspace apps and of ports reached over HTTP, by app session rather than
 * by request: a page load alone makes dozens of requests. A session is one viewer on one app: the
 * same session token (the dashboard's on a path app, the app host's own cookie on a subdomain), or
 * for an anonymous caller of a public app the same address and user agent, on the same agent and
 * app or port. Its row opens with its first request and closes once it has been idle for
 * {@link APP_SESSION_IDLE_MS}, with the bytes of all its requests and the HTTP status of the last.
 * A WebSocket to an app is a session of its own, open as long as the socket is (status 101).
 */
export class AppSessions {
  readonly #open = new Map<string, OpenSession>();

  constructor(private readonly context: ApiContext) {}

  /** Joins a request to its session, opening one when there is none. */
  request(request: FastifyRequest, viewer: AppViewer, resolved: ResolvedApp, upgrade: boolean): AppSessionRequest {
    const slugOrPort = resolved.app?.slug ?? (resolved.upstream instanceof Error ? '' : String(resolved.upstream.port));
    const userAgent = request.headers['user-agent'] ?? '';
    const who = viewer.kind === 'user' ? `key:${viewer.auth.apiKey.id}` : `anonymous:${request.ip}:${userAgent}`;
    const key = upgrade ? undefined : [who, resolved.agent.id, slugOrPort].join('\n');
    let session = key === undefined ? undefined : this.#open.get(key);
    if (!session) {
      const connection = this.context.connectionLog.open(
        {
          type: resolved.app ? 'workspace_app' : 'port_forwarding',
          workspace: resolved.workspace,
          agentName: resolved.agent.name,
          userId: viewer.kind === 'user' ? viewer.auth.user.id : null,
          ip: request.ip,
          userAgent,
          slugOrPort,
        },
        request.log,
      );
      session = { connection, active: 0, timer: undefined };
      if (key !== undefined) this.#open.set(key, session);
    }
    const current = session;
    clearTimeout(current.timer);
    current.active++;
    let finished = false;
    return {
      toApp: (bytes) => (current.connection.bytesToWorkspace += bytes),
      fromApp: (bytes) => (current.connection.bytesFromWorkspace += bytes),
      done: (status) => {
        if (finished) return;
        finished = true;
        if (status !== undefined) current.connection.code = status;
        current.active--;
        if (key === undefined) {
          current.connection.close({ reason: 'the WebSocket closed' });
          return;
        }
        if (current.active > 0) return;
        current.timer = setTimeout(() => {
          this.#open.delete(key);
          current.connection.close({ reason: 'the app session was idle' });
        }, APP_SESSION_IDLE_MS);
        current.timer.unref();
      },
    };
  }

  /** Ends every session: the daemon is shutting down. */
  closeAll(): void {
    for (const session of this.#open.values()) {
      clearTimeout(session.timer);
      session.connection.close({ reason: 'the daemon shut down' });
    }
    this.#open.clear();
  }
}
