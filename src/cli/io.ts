/** Where a command reads and writes, so tests can run commands in-process and read what they print. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { readonly isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Ends commands that run until Ctrl+C, as SIGINT does: in-process runs (tests) abort it instead. */
  readonly interrupt?: AbortSignal;
}

/** The process's own streams and environment. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}
