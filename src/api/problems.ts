import type { FastifyError } from 'fastify';
import {
  ConflictError,
  databaseUnavailableProblem,
  diskFullProblem,
  forbiddenProblem,
  HttpProblem,
  NotAuthorizedError,
  NotFoundError,
  type FieldValidation,
} from '../lib/errors.js';
import { ruleDetail } from '../domain/names.js';
import { databaseFailure } from '../store/db-errors.js';

/** The canonical answer for rows that do not exist and rows the caller may not see: identical on purpose. */
export const NOT_FOUND_MESSAGE = 'Resource not found or you do not have access to this resource';

/** The canonical answer for a refused action on something the caller can see. */
export const forbidden = forbiddenProblem;

/** The status, body and extra headers an error becomes. */
export interface ProblemResponse {
  readonly status: number;
  readonly body: { message: string; detail?: string; validations?: FieldValidation[] };
  readonly headers?: Readonly<Record<string, string>>;
  /** What the daemon's log says of it, when it is the server's fault and a plain "request failed" would not say what to do. */
  readonly logMessage?: string;
}

interface AjvIssue {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Record<string, unknown>;
  readonly data?: unknown;
  readonly message?: string;
}

type MaybeValidationError = FastifyError & {
  readonly validation?: readonly AjvIssue[];
  readonly validationContext?: string;
};

/**
 * Maps anything a request can throw to the spec's error shape. Client mistakes keep their 4xx;
 * only errors nothing accounts for become a 500.
 */
export function toProblem(error: unknown): ProblemResponse {
  if (error instanceof HttpProblem) return fromHttpProblem(error);
  // The database's own failures are no fault of the request: say so, and nothing of the driver's
  // text, which names the database's address, port and user.
  switch (databaseFailure(error)) {
    case 'unavailable':
      return { ...fromHttpProblem(databaseUnavailableProblem()), logMessage: 'the database is unavailable' };
    case 'disk-full':
      return {
        ...fromHttpProblem(diskFullProblem()),
        logMessage: 'the disk holding the database is full: free space on it; nothing of the failed request was written',
      };
  }
  // A refused read looks like a missing row; a refused change to a row the caller could read is a 403.
  if (error instanceof NotFoundError || (error instanceof NotAuthorizedError && isReadAction(error.action))) {
    return { status: 404, body: { message: NOT_FOUND_MESSAGE } };
  }
  if (error instanceof NotAuthorizedError) {
    const forbidden = forbiddenProblem();
    return { status: 403, body: compact(forbidden.message, forbidden.detail, forbidden.validations) };
  }
  if (error instanceof ConflictError) {
    return { status: 409, body: { message: 'A resource with that name already exists.', detail: error.constraint } };
  }
  const fastifyError = error as MaybeValidationError;
  if (fastifyError.validation) return validationProblem(fastifyError.validation, fastifyError.validationContext ?? 'body');
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return clientProblem(fastifyError, status);
  return {
    status: 500,
    body: { message: 'An internal server error occurred.', detail: error instanceof Error ? error.message : String(error) },
  };
}

function fromHttpProblem(error: HttpProblem): ProblemResponse {
  return {
    status: error.status,
    body: compact(error.message, error.detail, error.validations),
    ...(error.headers ? { headers: error.headers } : {}),
  };
}

function clientProblem(error: FastifyError, status: number): ProblemResponse {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, body: { message: 'Request body is too large.', detail: error.message } };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: 415,
        body: { message: 'Unsupported Content-Type.', detail: 'Send the request body as JSON with "Content-Type: application/json".' },
      };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, body: { message: 'Request body must be valid JSON.', detail: 'The body is empty.' } };
  }
  if (status === 400 && (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY')) {
    return { status: 400, body: { message: 'Request body must be valid JSON.', detail: error.message } };
  }
  return { status, body: { message: error.message || 'Bad request.' } };
}

function validationProblem(issues: readonly AjvIssue[], context: string): ProblemResponse {
  if (context === 'params') {
    const uuidIssue = issues.find((issue) => issue.keyword === 'format' && issue.params['format'] === 'uuid');
    if (uuidIssue) {
      const field = fieldOf(uuidIssue);
      return {
        status: 400,
        body: { message: `Invalid UUID "${String(uuidIssue.data ?? '')}".`, detail: `"${field}" must be a UUID` },
      };
    }
  }
  if (context === 'body' && issues.some((issue) => issue.instancePath === '' && issue.keyword === 'type')) {
    return { status: 400, body: { message: 'Request body must be valid JSON.', detail: 'The body must be a JSON object.' } };
  }
  // Ajv reports a union failure after the failures of its branches; the last word per field is the useful one.
  const byField = new Map<string, string>();
  for (const issue of issues) {
    const field = fieldOf(issue);
    // A union or an enum is the reference's `oneof` rule: one of these values.
    const tag = issue.keyword === 'anyOf' || issue.keyword === 'enum' ? 'oneof' : issue.keyword;
    const value = issue.keyword === 'required' ? '' : issue.data;
    const detail = ruleDetail(tag, typeof value === 'object' && value !== null ? JSON.stringify(value) : value);
    // Bounds (maximum, minLength, maxItems, ...) say what the limit is, so the client can fix the value.
    const limit = issue.params['limit'];
    byField.set(field, typeof limit === 'number' ? `${detail}; the limit is ${limit}` : detail);
  }
  const validations = [...byField].map(([field, detail]) => ({ field, detail }));
  const message = context === 'body' ? 'Validation failed.' : 'Query parameters have invalid values.';
  return { status: 400, body: { message, validations } };
}

function fieldOf(issue: AjvIssue): string {
  if (issue.keyword === 'required') return String(issue.params['missingProperty'] ?? '');
  const segments = issue.instancePath.split('/').filter((s) => s !== '' && !/^\d+$/.test(s));
  return segments.at(-1) ?? '';
}

function compact(message: string, detail: string | undefined, validations: readonly FieldValidation[] | undefined) {
  return {
    message,
    ...(detail ? { detail } : {}),
    ...(validations && validations.length > 0 ? { validations: [...validations] } : {}),
  };
}

function isReadAction(action: string): boolean {
  return action === 'read' || action === 'read_personal';
}
