import { closeSync, openSync, writeSync } from 'node:fs';
import type { Logger } from 'pino';
import type { RetentionValues } from '../domain/options/retention.js';
import type { EventExport } from '../store/event-export.js';
import type { AuditLogTable, ConnectionLogTable } from '../store/schema.js';

/** The organization id the wire gives what belongs to no organization. */
const NO_ORGANIZATION = '00000000-0000-0000-0000-000000000000';

/** Connection types that are web requests (apps, shared ports) rather than sessions, as the wire splits them. */
const WEB_CONNECTIONS: ReadonlySet<string> = new Set(['workspace_app', 'port_forwarding']);

/** The export of the daemon's audit and connection events, and how to stop it. */
export interface EventExportWriter {
  /** Undefined when neither export is configured. */
  readonly eventExport: EventExport | undefined;
  /** Stops listening for SIGHUP and closes the files. */
  close(): void;
}

/**
 * Opens the JSON-lines exports `--audit-logs-export` and `--connection-logs-export` name: `-` is
 * standard output, anything else a file opened for append and opened again on SIGHUP, so that a
 * log rotator can move it away and signal. Each event is one line of the wire's shape without the
 * joined user, organization and derived fields: a collector joins ids itself. A write that fails
 * is logged and the event is lost rather than holding up the change it reports.
 */
export function openEventExport(
  values: Pick<RetentionValues, 'auditLogsExport' | 'connectionLogsExport'>,
  logger: Logger,
): EventExportWriter {
  const audit = values.auditLogsExport ? new JsonLinesSink(values.auditLogsExport, logger) : undefined;
  const connection = values.connectionLogsExport ? new JsonLinesSink(values.connectionLogsExport, logger) : undefined;
  if (!audit && !connection) return { eventExport: undefined, close: () => {} };
  const reopen = (): void => {
    audit?.reopen();
    connection?.reopen();
  };
  process.on('SIGHUP', reopen);
  return {
    eventExport: {
      audit: (row) => audit?.write(auditLine(row)),
      connection: (row) => connection?.write(connectionLine(row)),
    },
    close: () => {
      process.off('SIGHUP', reopen);
      audit?.close();
      connection?.close();
    },
  };
}

/** An audit entry as its line: the wire's AuditLog without the joined user and organization. */
function auditLine(row: AuditLogTable): object {
  return {
    id: row.id,
    request_id: row.request_id,
    time: row.time,
    organization_id: row.organization_id || NO_ORGANIZATION,
    user_id: row.user_id,
    ip: row.ip,
    user_agent: row.user_agent,
    resource_type: row.resource_type,
    resource_id: row.resource_id,
    resource_target: row.resource_target,
    resource_icon: row.resource_icon,
    action: row.action,
    diff: parsed(row.diff),
    status_code: row.status_code,
    additional_fields: parsed(row.additional_fields),
  };
}

/** A connection log row as its line: the wire's ConnectionLog with ids for the joined user and organization. */
function connectionLine(row: ConnectionLogTable): object {
  const closed = row.disconnect_time === null ? {} : { disconnect_time: row.disconnect_time };
  const details = WEB_CONNECTIONS.has(row.type)
    ? { web_info: { user_agent: row.user_agent, slug_or_port: row.slug_or_port, status_code: row.code ?? 0 } }
    : {
        ssh_info: {
          connection_id: row.connection_id,
          ...closed,
          ...(row.disconnect_reason ? { disconnect_reason: row.disconnect_reason } : {}),
          ...(row.code === null ? {} : { exit_code: row.code }),
        },
      };
  return {
    id: row.id,
    connect_time: row.connect_time,
    organization_id: row.organization_id,
    workspace_owner_id: row.workspace_owner_id,
    workspace_id: row.workspace_id,
    workspace_name: row.workspace_name,
    agent_name: row.agent_name,
    ip: row.ip,
    type: row.type,
    user_id: row.user_id,
    ...details,
    ...closed,
    bytes_to_workspace: Number(row.bytes_to_workspace),
    bytes_from_workspace: Number(row.bytes_from_workspace),
  };
}

/** A stored JSON column as its value; the text itself should it not parse. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * One export destination. Lines are written synchronously, whole, in the order the events
 * committed: they are few and short, and a line is on disk before the request that made it
 * answers.
 */
class JsonLinesSink {
  #fd: number | undefined;
  #failing = false;

  constructor(
    readonly target: string,
    private readonly logger: Logger,
  ) {
    // At start a file that cannot be opened is a setting to fix: the daemon refuses to start.
    if (target !== '-') this.#fd = openSync(target, 'a', 0o600);
  }

  /** Opens the file again (SIGHUP): a rotated file is let go, and the next line starts a new one. */
  reopen(): void {
    if (this.target === '-') return;
    this.close();
    try {
      this.#fd = openSync(this.target, 'a', 0o600);
      this.#failing = false;
    } catch (error) {
      this.#failed(error);
    }
  }

  write(event: object): void {
    const line = `${JSON.stringify(event)}\n`;
    try {
      if (this.target === '-') process.stdout.write(line);
      else if (this.#fd !== undefined) writeSync(this.#fd, line);
      this.#failing = false;
    } catch (error) {
      this.#failed(error);
    }
  }

  close(): void {
    if (this.#fd === undefined) return;
    try {
      closeSync(this.#fd);
    } catch {
      // Already gone: nothing is left to flush, writes are synchronous.
    }
    this.#fd = undefined;
  }

  // Once per run of failures: a full disk must not flood the log with one line per event.
  #failed(error: unknown): void {
    if (!this.#failing) this.logger.warn({ err: error, file: this.target }, 'could not write the event export');
    this.#failing = true;
  }
}
