/** One failing field of a request, as the API reports it. */
export interface FieldValidation {
  readonly field: string;
  readonly detail: string;
}

/**
 * An error that already knows the HTTP answer it becomes: status, message, detail and validations.
 * Domain rules and route handlers throw it; the API's one error handler writes it out.
 */
export class HttpProblem extends Error {
  readonly status: number;
  readonly detail: string | undefined;
  readonly validations: readonly FieldValidation[] | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(
    status: number,
    message: string,
    options: {
      readonly detail?: string;
      readonly validations?: readonly FieldValidation[];
      readonly headers?: Readonly<Record<string, string>>;
    } = {},
  ) {
    super(message);
    this.name = 'HttpProblem';
    this.status = status;
    this.detail = options.detail;
    this.validations = options.validations;
    this.headers = options.headers;
  }
}

/** The canonical answer for a refused action on something the caller can see. */
export function forbiddenProblem(): HttpProblem {
  return new HttpProblem(403, 'Forbidden.', {
    detail:
      "You don't have permission to view this content. If you believe this is a mistake, please contact your administrator or try signing in with different credentials.",
  });
}

/** What every request answers while the database cannot be reached. */
export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is unavailable; try again shortly.';

/**
 * The answer while the database cannot be reached: a 503, which clients may retry. It says nothing
 * of where the database is or what the driver said (an address, a port, a user): those are the
 * operator's, and the daemon's log has them.
 */
export function databaseUnavailableProblem(): HttpProblem {
  return new HttpProblem(503, DATABASE_UNAVAILABLE_MESSAGE, {
    detail: 'The server could not reach its database. It reconnects by itself once the database is back.',
    headers: { 'retry-after': '5' },
  });
}

/** What every write answers while the disk holding the database is full. */
export const DISK_FULL_MESSAGE = 'The disk holding the database is full; free space on it and try again.';

/**
 * The answer when the database had no room to write: 507 Insufficient Storage. Nothing of the
 * request was kept (the transaction is rolled back whole), so it may be sent again once an
 * operator has freed space.
 */
export function diskFullProblem(): HttpProblem {
  return new HttpProblem(507, DISK_FULL_MESSAGE, {
    detail: 'Nothing of this request was saved. The server serves writes again as soon as there is space.',
  });
}

/** A row that does not exist. Reads turn it into the canonical 404. */
export class NotFoundError extends Error {
  /** What was not found, as the store names it ('template', 'provisioner job', ...). */
  constructor(readonly what = 'resource') {
    super(`${what} not found`);
    this.name = 'NotFoundError';
  }
}

/**
 * The authorizer refused. On reads it is indistinguishable from NotFoundError so that existence
 * never leaks; routes that answer 403 on purpose check for it explicitly.
 */
export class NotAuthorizedError extends Error {
  constructor(
    readonly action: string,
    readonly resourceType: string,
  ) {
    super(`not authorized to ${action} ${resourceType}`);
    this.name = 'NotAuthorizedError';
  }
}

/**
 * Whether a read failed because the row is missing or hidden from the caller: the two cases every
 * reader must treat alike, so that existence never leaks.
 */
export function isNotFoundOrHidden(error: unknown): error is NotFoundError | NotAuthorizedError {
  return error instanceof NotFoundError || error instanceof NotAuthorizedError;
}

/** A unique constraint refused a write. */
export class ConflictError extends Error {
  constructor(
    readonly constraint: string,
    message = `conflict on ${constraint}`,
  ) {
    super(message);
    this.name = 'ConflictError';
  }
}

/** The database schema is from a newer binary than the running one. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly databaseVersion: number,
    readonly binaryVersion: number,
  ) {
    super(
      `the database schema is at version ${databaseVersion}, newer than this binary knows (${binaryVersion}); ` +
        'upgrade cove before starting it against this database',
    );
    this.name = 'SchemaTooNewError';
  }
}
