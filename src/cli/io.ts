/** Where a command reads and writes, so tests can run commands in-process and read what they print. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { readonly isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Ends commands that run until Ctrl+C, as SIGINT does: in-process runs (tests) abort it instead. */
  readonly interrupt?: AbortSignal;
}

/**
 * The process's own streams and environment. The streams are made on first use: Node builds each
 * one when first asked for, and stdin read from a file or /dev/null (a script's, CI's) brings in
 * the fs streams and their promise API, which most commands never need.
 */
export function processIo(): CliIo {
  return {
    get stdout() {
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
    get stdin() {
      return process.stdin;
    },
    env: process.env,
  };
}
