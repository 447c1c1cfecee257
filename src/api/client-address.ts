import type { FastifyRequest } from 'fastify';
import type { DeploymentValues } from '../domain/deployment-options.js';
import { TrustedProxies } from '../domain/trusted-proxies.js';

/** Fixes a request's `request.ip`; calling it again does nothing. */
export type ClientAddressSettler = (request: FastifyRequest) => void;

/**
 * Makes `request.ip` the client's address everywhere the API reads it (rate limits, sign-in
 * throttling, request, audit and connection logs, API keys, workspace apps): the peer, or, when
 * the peer is a trusted reverse proxy, the client its trusted headers name. The app runs it as its
 * first hook, so every later reader agrees; WebSocket upgrades go through the same hooks. The
 * request log runs it earlier still, since fastify logs an incoming request before its hooks.
 *
 * Undefined when no proxy is trusted: then fastify's own `request.ip`, the peer, is already right,
 * and requests pay nothing.
 */
export function clientAddressSettler(values: DeploymentValues): ClientAddressSettler | undefined {
  const proxies = TrustedProxies.fromOptions(values);
  if (proxies === undefined) return undefined;
  return (request) => {
    if (Object.hasOwn(request, 'ip')) return;
    const peer = request.raw.socket.remoteAddress ?? '';
    // An own property shadows fastify's getter, which answers the peer.
    Object.defineProperty(request, 'ip', { value: proxies.clientAddress(peer, request.headers), enumerable: true });
  };
}
