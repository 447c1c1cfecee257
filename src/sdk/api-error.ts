import type { Response as WireResponse } from './wire/common.js';

/** What a failed call answered, with a hint at what to do next. */
export class ApiError extends Error {
  readonly status: number;
  readonly method: string;
  readonly url: string;
  readonly body: WireResponse;
  readonly hint: string | undefined;

  constructor(status: number, method: string, url: string, body: WireResponse) {
    super(body.message || `${method} ${url} answered ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.method = method;
    this.url = url;
    this.body = body;
    this.hint = hintFor(status);
  }

  /** The server's detail, when it gave one. */
  get detail(): string | undefined {
    return this.body.detail;
  }
}

function hintFor(status: number): string | undefined {
  switch (status) {
    case 401:
      return 'Run "cove login" to sign in again.';
    case 403:
      return 'Your account lacks the role this needs; ask an owner of the deployment.';
    case 404:
      return 'Check the name or id, and that your account can see it.';
    case 429:
      return 'Too many requests; wait a minute and try again.';
    default:
      return status >= 500 ? 'The server failed; its log has the details.' : undefined;
  }
}
