import { StoreFamily } from './store-family.js';
import { allowedRows } from '../authz-filter.js';
import { listFilter, siteObject, type ListFilter } from '../../rbac/index.js';
import { NotAuthorizedError } from '../../lib/errors.js';
import * as auditLogs from '../queries/audit-logs.js';
import type { UserRow } from '../queries/users.js';

/** A page of entries with what the answer shows of them besides their rows. */
export interface AuditLogPageRows {
  readonly rows: auditLogs.AuditLogWithOrganization[];
  /** The users who acted, by id (a deleted user's row included). */
  readonly users: Map<string, UserRow>;
  /** The resources the entries name, by id; a missing id is a resource that is gone. */
  readonly resources: Map<string, auditLogs.AuditedResourceState>;
}

/** The resource types whose state an entry shows (is_deleted, its link), looked up per page. */
const LOOKED_UP: Readonly<Record<string, keyof auditLogs.AuditedResourceIds>> = {
  template: 'templates',
  user: 'users',
  workspace: 'workspaces',
  workspace_build: 'builds',
};

/**
 * The audit log. Reading needs `read` on audit logs: owners and auditors read every entry, an
 * organization's auditors those of their organizations (filtered in SQL). Entries are written by
 * the families' audited changes, and by the API's audit hook as its own subject; a user's store
 * cannot write one.
 */
export class AuditLogStore extends StoreFamily {
  #visible(): ListFilter {
    const filter = listFilter(this.subject, 'read', 'audit_log');
    if (!filter.all && filter.orgIds.length === 0) throw new NotAuthorizedError('read', 'audit_log');
    return filter;
  }

  /**
   * One page of the entries the subject may read that pass the filter, newest first, with their
   * users and the state of the resources they name (a fixed number of queries per page).
   * Throws NotAuthorizedError when the subject may read no entry at all.
   */
  async list(filter: auditLogs.AuditLogFilter, page: auditLogs.AuditLogPage): Promise<AuditLogPageRows> {
    const visible = this.#visible();
    const rows = await auditLogs.listAuditLogs(
      this.db,
      this.store.dialect,
      filter,
      (eb) => allowedRows(eb, visible, { org: 'a.organization_id', owner: null }),
      page,
    );
    const userIds = [...new Set(rows.map((row) => row.user_id).filter((id): id is string => id !== null))];
    const ids: Record<keyof auditLogs.AuditedResourceIds, string[]> = { templates: [], users: [], workspaces: [], builds: [] };
    for (const row of rows) {
      const kind = LOOKED_UP[row.resource_type];
      if (kind && row.resource_id !== '') ids[kind].push(row.resource_id);
    }
    const [users, resources] = await Promise.all([
      userIds.length === 0 ? [] : this.db.selectFrom('users').selectAll().where('id', 'in', userIds).execute(),
      auditLogs.auditedResourceStates(this.db, ids),
    ]);
    return { rows, users: new Map(users.map((user) => [user.id, user])), resources };
  }

  /** How many entries the subject may read pass the filter; throws NotAuthorizedError as list does. */
  async count(filter: auditLogs.AuditLogFilter): Promise<number> {
    const visible = this.#visible();
    return auditLogs.countAuditLogs(this.db, filter, (eb) => allowedRows(eb, visible, { org: 'a.organization_id', owner: null }));
  }

  /**
   * Entries are the deployment's record of what its users did: only a system subject writes them
   * directly (owners hold every right on audit logs through their wildcard, yet must not forge one).
   */
  #requireWriter(): void {
    if (this.subject.type !== 'system') throw new NotAuthorizedError('create', 'audit_log');
    this.require('create', siteObject('audit_log'));
  }

  /** Writes an entry no family wrote (a refused or failed request); needs a system subject with `create` on audit logs. */
  async record(row: auditLogs.AuditLogRow): Promise<void> {
    this.#requireWriter();
    await auditLogs.insertAuditLog(this.db, row);
    this.store.eventExport?.audit(row);
  }

  /**
   * Sets the status of the entries a request wrote to its answer's, when that differs from the one
   * they were written with; answers how many entries were found. Needs what record needs.
   */
  async correctStatus(requestId: string, ids: readonly string[], status: number): Promise<number> {
    this.#requireWriter();
    return auditLogs.updateAuditLogStatus(this.db, requestId, ids, status);
  }
}
