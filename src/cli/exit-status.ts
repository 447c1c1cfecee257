/**
 * A failure that ends the command with a status of its own, reported as its cause would be: `cove
 * ssh` exits 255 when the connection fails, as OpenSSH does, whatever the failure was.
 */
export class ExitStatusError extends Error {
  readonly exitCode: number;

  constructor(cause: unknown, exitCode: number) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'ExitStatusError';
    this.exitCode = exitCode;
  }
}
