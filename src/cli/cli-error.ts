/** A mistake the user can fix; printed as one line, without a stack trace. */
export class CliError extends Error {
  readonly hint: string | undefined;
  readonly exitCode: number;

  constructor(message: string, options: { readonly hint?: string; readonly exitCode?: number } = {}) {
    super(message);
    this.name = 'CliError';
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }
}
