import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { DeploymentValues } from '../domain/deployment-options.js';
import { splitHostPort } from './host-port.js';
import { certificateFor, loadTlsCertificates, type TlsCertificates } from './tls-certificates.js';
import { listenBacklog } from './listen-backlog.js';

/** The daemon's HTTPS listener. */
export interface TlsListener {
  /** Its base URL, e.g. `https://127.0.0.1:3443`. */
  readonly url: string;
  /** Reads the certificate files again; keeps the ones served and returns false when they cannot be used. */
  reload(): boolean;
  /** Stops accepting connections; the ones open belong to the HTTP server, which closes them. */
  close(): Promise<void>;
}

/**
 * Serves the API over TLS on --tls-address. Each connection, once its handshake is done, is handed
 * to the same HTTP server as the plain listener's, so routes, WebSocket upgrades, timeouts and the
 * graceful shutdown are the same on both. SIGHUP reads the certificate files again: connections
 * already open keep the certificate they started with, new ones get the new files.
 */
export async function listenTls(httpServer: HttpServer, values: DeploymentValues, logger: Logger): Promise<TlsListener> {
  let certificates: TlsCertificates = loadTlsCertificates(values);
  const policy = values.tlsClientAuth;
  const server = createServer({
    ...certificates.defaultOptions,
    requestCert: policy !== 'none',
    // Only this policy may end the handshake itself; the others decide once it is done (below).
    rejectUnauthorized: policy === 'require-and-verify',
    SNICallback: (serverName, done) => done(null, certificateFor(certificates, serverName)),
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    const refusal = clientCertificateRefusal(socket, policy);
    if (refusal) {
      logger.debug({ remote: socket.remoteAddress, reason: refusal }, 'refused a TLS client');
      socket.destroy();
      return;
    }
    httpServer.emit('connection', socket);
  });
  // Failed handshakes (scanners, clients that do not trust the certificate) are routine: not errors.
  server.on('tlsClientError', (error, socket) => {
    logger.debug({ err: error, remote: socket.remoteAddress }, 'TLS handshake failed');
  });
  const [host, port] = splitHostPort(values.tlsAddress, '--tls-address');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, backlog: listenBacklog() }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const url = `https://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`;
  const reload = (): boolean => {
    try {
      const next = loadTlsCertificates(values);
      server.setSecureContext(next.defaultOptions);
      certificates = next;
      logger.info({ files: values.tlsCertFiles }, 'loaded the TLS certificates again');
      return true;
    } catch (error) {
      logger.error({ err: error }, `kept the TLS certificates served until now: ${(error as Error).message}`);
      return false;
    }
  };
  const onHangUp = () => void reload();
  process.on('SIGHUP', onHangUp);
  return {
    url,
    reload,
    close: () => {
      process.off('SIGHUP', onHangUp);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Why a finished handshake's client is refused under `policy`; undefined when it may go on. */
function clientCertificateRefusal(socket: TLSSocket, policy: string): string | undefined {
  if (policy !== 'require-any' && policy !== 'verify-if-given') return undefined;
  const given = Object.keys(socket.getPeerCertificate()).length > 0;
  if (policy === 'require-any') return given ? undefined : 'no client certificate';
  return given && !socket.authorized ? `client certificate not trusted: ${String(socket.authorizationError)}` : undefined;
}
