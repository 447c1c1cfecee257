import { StoreFamily } from './store-family.js';
import { allowedRows } from '../authz-filter.js';
import { listFilter } from '../../rbac/index.js';
import { NotAuthorizedError } from '../../lib/errors.js';
import * as connectionLogs from '../queries/connection-logs.js';
import * as members from '../queries/members.js';
import type { UserRow } from '../queries/users.js';

/** One page of the connection log, how many rows match in all, and the users who connected. */
export interface ConnectionLogPage {
  readonly rows: connectionLogs.ConnectionLogView[];
  readonly count: number;
  readonly users: ReadonlyMap<string, UserRow>;
  /** The organizations each of those users belongs to. */
  readonly organizationIds: ReadonlyMap<string, readonly string[]>;
}

/** The log of connections to workspaces through the relay: terminals, SSH, forwarded ports and apps. */
export class ConnectionLogStore extends StoreFamily {
  /** Writes the row of a connection that opened; needs `create` on audit logs. */
  async open(row: connectionLogs.ConnectionLogRow): Promise<void> {
    this.require('create', { type: 'audit_log', org_id: row.organization_id });
    await connectionLogs.insertConnectionLog(this.db, row);
  }

  /** Writes how a connection ended; false when its row was closed already. Needs `create` on audit logs: it completes the record. */
  async close(id: string, end: connectionLogs.ConnectionLogEnd): Promise<boolean> {
    this.require('create', { type: 'audit_log' });
    return connectionLogs.closeConnectionLog(this.db, id, end);
  }

  /** Closes the rows a replica's previous run left open (it died before writing their ends); returns how many. */
  async closeLeftOpen(replicaId: string, time: string, reason: string): Promise<number> {
    this.require('create', { type: 'audit_log' });
    return connectionLogs.closeOpenConnectionLogsOf(this.db, replicaId, time, reason);
  }

  /**
   * One page of the rows the subject may read (`read` on audit logs: owners and auditors all,
   * organization auditors their organizations'), newest first, with the count of all that match.
   * A subject who may read none is refused: the log is not theirs to look at.
   */
  async list(
    filter: connectionLogs.ConnectionLogFilter,
    page: { readonly limit: number; readonly offset: number },
  ): Promise<ConnectionLogPage> {
    const allowed = listFilter(this.subject, 'read', 'audit_log');
    if (!allowed.all && allowed.orgIds.length === 0) throw new NotAuthorizedError('read', 'audit_log');
    const query = connectionLogs
      .selectConnectionLogs(this.db, filter)
      .where((eb) => allowedRows(eb, { ...allowed, ownerId: null }, { org: 'c.organization_id', owner: null }));
    const [rows, count] = await Promise.all([
      connectionLogs.pageConnectionLogs(query, page.limit, page.offset),
      connectionLogs.countConnectionLogs(query),
    ]);
    const userIds = [...new Set(rows.map((row) => row.user_id).filter((id): id is string => id !== null))];
    // Who connected is part of the record the subject may read, whether or not they may read that user otherwise.
    const [users, organizationIds] = await Promise.all([
      connectionLogs.usersByIds(this.db, userIds),
      members.organizationIdsOfUsers(this.db, userIds),
    ]);
    return { rows, count, users, organizationIds };
  }

  /** How many rows the subject may read match the filter. */
  async count(filter: connectionLogs.ConnectionLogFilter): Promise<number> {
    const allowed = listFilter(this.subject, 'read', 'audit_log');
    if (!allowed.all && allowed.orgIds.length === 0) return 0;
    const query = connectionLogs
      .selectConnectionLogs(this.db, filter)
      .where((eb) => allowedRows(eb, { ...allowed, ownerId: null }, { org: 'c.organization_id', owner: null }));
    return connectionLogs.countConnectionLogs(query);
  }
}
