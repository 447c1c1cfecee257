/**
 * The exit status when the reader of the CLI's output has gone (`cove logs dev | head -1`): 141,
 * the status a shell gives a program killed by SIGPIPE (128 + 13), as it gives `yes | head -1`'s
 * writer and the reference's CLI. Node ignores SIGPIPE, so the process cannot die of it and
 * exits with that status instead; docs/cli.md says so.
 */
export const CLOSED_OUTPUT_STATUS = 141;

/**
 * Ends the process quietly, without a stack trace, when standard output or error turns out to be
 * a pipe nobody reads any more: nothing more can be said, and what was left to print is not
 * wanted. Installed once by the CLI's entry, not per command; in-process runs (tests) never get it.
 */
export function exitQuietlyWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      // Any other error of the stream is a fault, as it was without this listener.
      if (error.code !== 'EPIPE') throw error;
      process.exit(CLOSED_OUTPUT_STATUS);
    });
  }
}
