import { CliError } from './cli-error.js';

/**
 * The workspace's agent is disconnected or timed out: nothing can reach it. A CliError of its own
 * so `cove ssh` can tell it from a typing mistake and exit 255 as OpenSSH does when a connection fails.
 */
export class AgentUnreachableError extends CliError {
  constructor(message: string, options: { readonly hint?: string } = {}) {
    super(message, options);
    this.name = 'AgentUnreachableError';
  }
}
