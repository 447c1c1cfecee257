/** A mistake the user can fix; printed as one line, without a stack trace. */
export class CliError extends Error {
  /** A second line explaining the message, as the API's `detail` does. */
  readonly detail: string | undefined;
  readonly hint: string | undefined;
  readonly exitCode: number;

  constructor(message: string, options: { readonly detail?: string; readonly hint?: string; readonly exitCode?: number } = {}) {
    super(message);
    this.name = 'CliError';
    this.detail = options.detail;
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }
}
