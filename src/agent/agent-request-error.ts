/**
 * An agent's refusal of a question the daemon relayed (`listening_ports`, `containers`,
 * `recreate_devcontainer`). Its status, message and detail go back to the user as the HTTP error.
 */
export class AgentRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail: string,
  ) {
    super(message);
    this.name = 'AgentRequestError';
  }
}
