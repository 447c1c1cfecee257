import * as sea from 'node:sea';

/**
 * The path of the single executable this process runs from (`npm run package` builds it), or
 * undefined when cove runs as node with `bin/cove`. That file is the CLI, the daemon and the agent
 * at once, so whatever starts another cove (an agent, an SSH proxy command) starts this file.
 */
export function singleExecutablePath(): string | undefined {
  // Node before 20.12 has no isSea; it cannot have built a single executable of ours either.
  return typeof sea.isSea === 'function' && sea.isSea() ? process.execPath : undefined;
}
