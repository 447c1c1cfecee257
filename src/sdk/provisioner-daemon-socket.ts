import { clientTlsOptions } from './client-tls.js';
import type { WebSocket } from 'ws';
import { VERSION } from '../lib/version.js';
import { PROVISIONER_KEY_HEADER } from './wire/provisioner-protocol.js';

/** Who a provisioner daemon is and what it can run. */
export interface ProvisionerDaemonIdentity {
  /** The deployment's base URL, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  /** Organization id or name; `default` for the default organization. */
  readonly organization: string;
  /** A stable id, so a reconnecting daemon is the same row. */
  readonly id: string;
  readonly name: string;
  readonly provisioners: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
  /** A provisioner key, or a session token of a user allowed to run daemons for the organization. */
  readonly key?: string;
  readonly sessionToken?: string;
}

/**
 * Opens the job-protocol WebSocket of a provisioner daemon. Resolves once the daemon accepted the
 * connection; rejects with the daemon's error message when it refused (bad key, unknown organization).
 */
export async function dialProvisionerDaemon(identity: ProvisionerDaemonIdentity): Promise<WebSocket> {
  const { WebSocket } = await import('ws');
  const target = new URL(
    `${identity.url.replace(/\/$/, '')}/api/v2/organizations/${encodeURIComponent(identity.organization)}/provisionerdaemons/serve`,
  );
  target.protocol = target.protocol === 'https:' ? 'wss:' : 'ws:';
  target.searchParams.set('id', identity.id);
  target.searchParams.set('name', identity.name);
  // The daemon's health report compares it with the server's own.
  target.searchParams.set('version', VERSION);
  for (const provisioner of identity.provisioners) target.searchParams.append('provisioner', provisioner);
  for (const [key, value] of Object.entries(identity.tags)) target.searchParams.append('tag', `${key}=${value}`);
  const headers: Record<string, string> = {};
  if (identity.key) headers[PROVISIONER_KEY_HEADER] = identity.key;
  if (identity.sessionToken) headers['service-session-token'] = identity.sessionToken;
  const socket = new WebSocket(target, { headers, maxPayload: 256 * 1024 * 1024, ...clientTlsOptions() });
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => {
        let message = `the daemon refused the provisioner connection (HTTP ${response.statusCode})`;
        try {
          message = `${message}: ${(JSON.parse(body) as { message: string }).message}`;
        } catch {
          // Not the error shape; the status says enough.
        }
        reject(new Error(message));
      });
    });
    socket.once('error', reject);
  });
}
