/**
 * The request an audit entry belongs to: who made it and from where. A route's authorizing store
 * carries it (`store.as(subject, auditRequest)`), so that every change a store family makes for the
 * request writes its entry with these facts, in the change's own transaction.
 */
export interface AuditRequest {
  readonly requestId: string;
  /** The client's address as the daemon trusts it. */
  readonly ip: string;
  readonly userAgent: string;
  /** The signed-in caller; null before sign-in (a sign-in, a first user) and for unknown callers. */
  readonly userId: string | null;
  /**
   * Entries this request wrote so far. The API's audit hook reads it when the answer is sent: it
   * corrects their status code when the answer's differs, and writes an entry of its own for a
   * state-changing request that wrote none (one refused or failed before its change).
   */
  readonly written: AuditWritten[];
  /**
   * For a request the API's audit hook completes: the exports of its committed entries, waiting
   * for the answer's status (which the hook also writes to the entries). Absent elsewhere, where
   * entries are exported as they commit.
   */
  readonly settled?: ((status: number) => void)[];
}

/** An entry a request wrote: enough for the API's hook to correct or complete it. */
export interface AuditWritten {
  readonly id: string;
  readonly resourceType: string;
  readonly action: string;
}

/**
 * One change to audit, as a store family describes it. `old` and `new` are the resource's rows
 * (or any flat objects) before and after; the entry keeps the fields that differ, secrets
 * redacted (see audit-diff.ts). A create has no `old`, a delete no `new`.
 */
export interface AuditChange {
  /** A wire AuditResourceType: `template`, `workspace_build`, `user`, ... */
  readonly resourceType: string;
  /** A wire AuditAction: `create`, `write`, `delete`, `start`, `stop`, `login`, ... */
  readonly action: string;
  readonly resourceId: string;
  /** The resource's name. */
  readonly resourceTarget: string;
  readonly resourceIcon?: string;
  /** Empty or absent outside any organization. */
  readonly organizationId?: string;
  readonly old?: object;
  readonly new?: object;
  /** Extra facts shown with the entry, such as a build's `build_reason`. */
  readonly additionalFields?: Readonly<Record<string, string>>;
  /** The answer's status; the API's hook corrects it if the answer differs. 200 when absent. */
  readonly statusCode?: number;
  /** Who acted, when it is not the request's caller (a sign-in names the user who signed in). */
  readonly userId?: string | null;
}
