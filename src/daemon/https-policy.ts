import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { ResolvedOptions } from '../domain/deployment-options.js';
import { hstsHeader } from '../domain/options/tls-checks.js';

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Puts the Strict-Transport-Security header on HTTPS answers and, with --redirect-to-access-url,
 * sends requests for another host (or plain HTTP ones when the access URL is https) to the access
 * URL. It wraps the HTTP server's own request listener, ahead of the API, so both listeners and
 * every route, the dashboard's files included, answer the same way. `accessUrl` is read per
 * request: the default one is known only once the port is bound.
 */
export function applyHttpsPolicy(server: HttpServer, options: ResolvedOptions, accessUrl: () => string): void {
  const { values } = options;
  const hsts = hstsHeader(values.strictTransportSecurity, values.strictTransportSecurityOptions);
  // The deprecated --tls-redirect-http-to-https decides when given, as the reference lets it.
  const redirect = options.sources.tlsRedirectHttp === 'default' ? values.redirectToAccessUrl : values.tlsRedirectHttp;
  if (hsts === '' && !redirect) return;
  const wildcard = values.wildcardAccessUrl.replace(/^\*\./, '.').split(':')[0]?.toLowerCase() ?? '';
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const encrypted = (request.socket as Partial<TLSSocket>).encrypted === true;
    if (redirect) {
      const target = redirectTarget(request, encrypted, new URL(accessUrl()), wildcard);
      if (target) {
        response.writeHead(307, { location: target, 'content-length': '0' }).end();
        return;
      }
    }
    if (hsts !== '' && encrypted) response.setHeader('strict-transport-security', hsts);
    for (const listener of listeners) listener.call(server, request, response);
  });
}

/** Where a request is sent instead of being answered; undefined to answer it. */
function redirectTarget(request: IncomingMessage, encrypted: boolean, accessUrl: URL, wildcard: string): string | undefined {
  // Health probes are answered where they knock: a load balancer does not follow redirects.
  if (request.url === '/healthz' || request.url?.startsWith('/healthz?')) return undefined;
  const host = (request.headers.host ?? '').toLowerCase();
  const hostname = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  // Local addresses (the built-in provisioner daemons, a health check on the host) are never sent away.
  if (isLoopback(hostname)) return undefined;
  // Appended to the origin, not resolved against it: a path such as `//elsewhere` stays a path.
  const path = request.url?.startsWith('/') ? request.url : '/';
  const target = `${accessUrl.origin}${accessUrl.pathname.replace(/\/$/, '')}${path}`;
  if (accessUrl.protocol === 'https:' && !encrypted) return target;
  if (host === accessUrl.host) return undefined;
  const forwarded = request.headers['x-forwarded-host'];
  if (typeof forwarded === 'string' && forwarded.toLowerCase() === accessUrl.host) return undefined;
  // Subdomain apps live on hosts under the wildcard access URL.
  if (wildcard !== '' && hostname.endsWith(wildcard)) return undefined;
  return target;
}

function isLoopback(hostname: string): boolean {
  if (isIP(hostname) === 4) return hostname.startsWith('127.');
  return hostname === '::1';
}
