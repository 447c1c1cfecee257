import { isSea } from 'node:sea';

/**
 * The path of the single executable this process runs from (`npm run package` builds it), or
 * undefined when cove runs as node with `bin/cove`. That file is the CLI, the daemon and the agent
 * at once, so whatever starts another cove (an agent, an SSH proxy command) starts this file.
 */
export function singleExecutablePath(): string | undefined {
  return isSea() ? process.execPath : undefined;
}
