import type { Kysely } from 'kysely';
import { newId } from '../../lib/random.js';
import type { Subject } from '../../rbac/index.js';
import { insertAuditLog, type AuditLogRow } from '../queries/audit-logs.js';
import type { EventExport } from '../event-export.js';
import type { Database } from '../schema.js';
import { auditDiff } from './audit-diff.js';
import type { AuditChange, AuditRequest } from './audit-request.js';

/** What an audited write knows besides its change: the request (if any), the subject, the time. */
export interface AuditSource {
  readonly request: AuditRequest | undefined;
  readonly subject: Subject;
  readonly now: string;
  /** Where the entry is also written once its transaction commits (`--audit-logs-export`). */
  readonly eventExport?: EventExport | undefined;
}

/**
 * The exports waiting for the commit of each transaction writeAudited opened: an audited write
 * nested in another joins its transaction, and its entry goes out when that one commits.
 */
const afterCommit = new WeakMap<Kysely<Database>, (() => void)[]>();

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
    if (described) {
      const row = auditRow(source, described);
      await insertAuditLog(trx, row);
      const { eventExport } = source;
      if (eventExport) {
        // A request's entries leave with the status its answer ends up with, which the hook settles.
        const settled = source.request?.settled;
        const send = (): void => {
          if (settled) settled.push((status) => eventExport.audit({ ...row, status_code: status }));
          else eventExport.audit(row);
        };
        const waiting = afterCommit.get(trx);
        // In a transaction someone else opened, whose commit is out of sight: exported as written.
        if (waiting) waiting.push(send);
        else send();
      }
    }
    return result;
  };
  if (db.isTransaction) return run(db);
  const waiting: (() => void)[] = [];
  const result = await db.transaction().execute((trx) => {
    afterCommit.set(trx, waiting);
    return run(trx);
  });
  // Committed: only now may the entries leave, so a collector never sees a change that was rolled back.
  for (const send of waiting) send();
  return result;
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
