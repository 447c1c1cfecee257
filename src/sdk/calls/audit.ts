import { ClientCore } from '../client-core.js';
import type { AuditLogResponse, AuditLogsRequest, ConnectionLogResponse, ConnectionLogsRequest } from '../wire/index.js';

/**
 * Who did what: the audit log and the connection log (owners and auditors).
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class AuditCalls extends ClientCore {
  /** One page of the audit log, newest first, matching `q`. */
  auditLogs(query: AuditLogsRequest = {}): Promise<AuditLogResponse> {
    return this.request('GET', '/audit', { query: { ...query } });
  }

  /** One page of the connection log, newest first, matching `q`. */
  connectionLogs(query: ConnectionLogsRequest = {}): Promise<ConnectionLogResponse> {
    return this.request('GET', '/connectionlog', { query: { ...query } });
  }
}
