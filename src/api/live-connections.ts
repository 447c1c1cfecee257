import type { FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { Authenticated } from '../domain/authentication.js';
import type { ShareLevel } from '../domain/port-sharing.js';
import type { WorkspaceRow } from '../store/rows.js';
import { appAccess, appAccessRules, type AppViewer } from './apps/app-access.js';
import type { ApiContext } from './context.js';
import { liveSessionsOf, SESSION_ENDED_CLOSE_CODE, type LiveConnection } from './live-sessions.js';
import { authOf, type RequestAuth } from './plugins/authentication.js';
import { presentedToken } from './session-token.js';

/** How long a client has to answer a close before its socket is cut. */
const CLOSE_GRACE_MS = 1_000;

/** The session a connection is opened with, as presented: no token means it was not signed in. */
export interface PresentedSession {
  readonly token: string | undefined;
  readonly ipAddress: string;
  readonly opened: Authenticated;
}

/** What a connection re-checks: whether the caller, as the session is now, may keep it. */
export type Reauthorize = (auth: RequestAuth) => unknown;

/**
 * Records a WebSocket of an authenticated request with the session that opened it, until it
 * closes. When that session or its access ends, the socket is closed with 4401 and the reason;
 * `onEnd` ends what it carries on the other side (a relay stream to the agent).
 */
export function trackWebSocket(
  context: ApiContext,
  request: FastifyRequest,
  socket: WebSocket,
  authorize: Reauthorize,
  onEnd?: (reason: string) => void,
): void {
  trackSessionSocket(context, sessionOf(request), socket, authorize, onEnd);
}

/**
 * As trackWebSocket, for a socket whose route authenticates `token` itself (a provisioner daemon
 * that serves with a user's session rather than a provisioner key).
 */
export function trackSessionSocket(
  context: ApiContext,
  session: PresentedSession,
  socket: WebSocket,
  authorize: Reauthorize,
  onEnd?: (reason: string) => void,
): void {
  const forget = trackSession(context, session, {
    authorize,
    end: (reason) => {
      onEnd?.(reason);
      endWebSocket(socket, reason);
    },
  });
  if (socket.readyState === socket.CLOSED) forget();
  else socket.once('close', forget);
}

/**
 * Records a long answer of an authenticated request (server-sent events) until the caller leaves;
 * when the session or its access ends, the answer ends and its connection is closed.
 */
export function trackEventStream(context: ApiContext, request: FastifyRequest, reply: FastifyReply, authorize: Reauthorize): void {
  const forget = trackSession(context, sessionOf(request), {
    authorize,
    end: () => {
      // The answer ends cleanly when the client reads it; its connection goes either way.
      const socket = request.raw.socket;
      reply.raw.end(() => socket.destroy());
      setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
    },
  });
  if (request.raw.destroyed) forget();
  else request.raw.once('close', forget);
}

/**
 * Records a connection of the signed-in caller of `token`; returns the function that forgets it.
 * Nothing is recorded without a token: such a request was not signed in.
 */
export function trackSession(context: ApiContext, session: PresentedSession, connection: LiveConnection): () => void {
  const { token } = session;
  if (!token) return () => undefined;
  return liveSessionsOf(context).open({ ...session, token }, connection);
}

/**
 * Records a workspace app request of a signed-in viewer (`token` is what signed them in: the
 * dashboard's session on a path app, the app host's own on a subdomain) until its answer is done,
 * or, for a WebSocket, until its socket closes. When the session ends or the viewer may no longer
 * open the app, the caller's socket is destroyed, and with it the stream to the app.
 */
export function trackAppConnection(
  context: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  viewer: AppViewer,
  token: string | undefined,
  app: { readonly level: ShareLevel; readonly workspace: WorkspaceRow; readonly pathApp: boolean },
): void {
  const rules = appAccessRules(context.values, app.pathApp);
  if (viewer.kind !== 'user') return;
  const socket = request.raw.socket;
  const forget = trackSession(
    context,
    { token, ipAddress: request.ip, opened: viewer.auth },
    {
      authorize: (auth) => appAccess(app.level, app.workspace, { kind: 'user', auth }, rules) === 'allowed',
      end: () => socket.destroy(),
    },
  );
  // An upgraded socket is the app's until it closes; a plain request is done with its answer.
  const done = request.headers.upgrade ? socket : reply.raw;
  if (socket.destroyed) forget();
  else done.once('close', forget);
}

/** The session an authenticated request presented. */
function sessionOf(request: FastifyRequest): PresentedSession {
  return { token: presentedToken(request), ipAddress: request.ip, opened: authOf(request) };
}

/** Closes a socket with the session-ended code, and cuts it if the client does not answer in time. */
export function endWebSocket(socket: WebSocket, reason: string): void {
  if (socket.readyState === socket.CLOSED) return;
  const cut = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
  cut.unref();
  socket.once('close', () => clearTimeout(cut));
  if (socket.readyState === socket.CLOSING) return;
  // A paused socket would not read the client's answer to the close.
  socket.resume();
  socket.close(SESSION_ENDED_CLOSE_CODE, closeReason(reason));
}

/** A close reason within the 123 bytes a close frame allows. */
function closeReason(reason: string): string {
  let text = reason;
  while (Buffer.byteLength(text) > 123) text = text.slice(0, -1);
  return text;
}
