import type { FastifyReply } from 'fastify';

/**
 * The CSP directive that forbids every page from framing the answer. Framed, a page of the daemon
 * (the dashboard, the CLI sign-in page and its "create a session token" button) could be dressed
 * up by another site to make its visitor click where it wants.
 */
export const FRAME_ANCESTORS_NONE = "frame-ancestors 'none'";

/**
 * Marks an HTML answer of the daemon as never to be framed: the CSP directive for browsers that
 * read it, `X-Frame-Options` for those that do not. Pages with a policy of their own (the
 * dashboard's) carry the directive in it and set only the second header. Proxied app answers are
 * the app's and get neither.
 */
export function denyFraming(reply: FastifyReply): void {
  void reply.header('content-security-policy', FRAME_ANCESTORS_NONE);
  void reply.header('x-frame-options', 'DENY');
}
