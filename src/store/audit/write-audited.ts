import type { Kysely } from 'kysely';
import { newId } from '../../lib/random.js';
import type { Subject } from '../../rbac/index.js';
import { insertAuditLog, type AuditLogRow } from '../queries/audit-logs.js';
import type { Database } from '../schema.js';
import { auditDiff } from './audit-diff.js';
import type { AuditChange, AuditRequest } from './audit-request.js';

/** What an audited write knows besides its change: the request (if any), the subject, the time. */
export interface AuditSource {
  readonly request: AuditRequest | undefined;
  readonly subject: Subject;
  readonly now: string;
}

/**
 * Runs `change` and writes the audit entry `describe` makes of its result in one transaction, so
 * that no change is kept without its entry and no entry without its change. Inside a transaction
 * already (one audited write calling another), both join it. `change` must run every statement on
 * the handle it is given.
 */
export async function writeAudited<T>(
  db: Kysely<Database>,
  source: AuditSource,
  change: (db: Kysely<Database>) => Promise<T>,
  describe: (result: T) => AuditChange | undefined,
): Promise<T> {
  const run = async (trx: Kysely<Database>): Promise<T> => {
    const result = await change(trx);
    const described = describe(result);
    if (described) await insertAuditLog(trx, auditRow(source, described));
    return result;
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/** The row of one change. The request's caller acts, else the subject when it is a user (system work has no user). */
export function auditRow(source: AuditSource, change: AuditChange): AuditLogRow {
  const { request, subject } = source;
  const id = newId();
  const row: AuditLogRow = {
    id,
    time: source.now,
    user_id: change.userId !== undefined ? change.userId : (request?.userId ?? (subject.type === 'system' ? null : subject.id)),
    organization_id: change.organizationId ?? '',
    ip: request?.ip ?? '',
    user_agent: request?.userAgent ?? '',
    resource_type: change.resourceType,
    resource_id: change.resourceId,
    resource_target: change.resourceTarget,
    resource_icon: change.resourceIcon ?? '',
    action: change.action,
    diff: JSON.stringify(auditDiff(change.old, change.new)),
    status_code: change.statusCode ?? 200,
    additional_fields: JSON.stringify(change.additionalFields ?? {}),
    request_id: request?.requestId ?? '',
  };
  request?.written.push({ id, resourceType: change.resourceType, action: change.action });
  return row;
}
