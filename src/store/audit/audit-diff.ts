/** One changed field as the audit log keeps it (the wire's AuditDiffField). */
export interface AuditDiffEntry {
  readonly old?: unknown;
  readonly new?: unknown;
  readonly secret: boolean;
}

/**
 * Fields whose values never reach the audit log: their change is recorded with `secret` true and
 * both values empty. Matched anywhere in the field name: besides passwords, tokens and keys, a
 * license's signed token (`jwt`) is a credential of the deployment, and a build's provisioner state
 * holds whatever the template's infrastructure keeps in it.
 */
const SECRET_FIELD = /(password|passcode|secret|token|hashed|_hash$|private_key|_key_id|code_verifier|signing_key|jwt|provisioner_state)/;

/** Fields that change with every write and say nothing of what the caller changed. */
const NOISE_FIELDS: ReadonlySet<string> = new Set(['updated_at', 'last_used', 'last_seen_at']);

/**
 * The fields that differ between `before` and `after` (either may be absent: a create, a delete),
 * compared as JSON, with secrets redacted.
 */
export function auditDiff(before: object | undefined, after: object | undefined): Record<string, AuditDiffEntry> {
  const diff: Record<string, AuditDiffEntry> = {};
  const old = (before ?? {}) as Record<string, unknown>;
  const now = (after ?? {}) as Record<string, unknown>;
  for (const field of new Set([...Object.keys(old), ...Object.keys(now)])) {
    if (NOISE_FIELDS.has(field)) continue;
    const a = old[field];
    const b = now[field];
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    diff[field] = SECRET_FIELD.test(field) ? { old: '', new: '', secret: true } : { old: a, new: b, secret: false };
  }
  return diff;
}
