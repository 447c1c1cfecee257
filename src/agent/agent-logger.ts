/** Where the agent writes its own log: one call per event, structured fields first. */
export interface AgentLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** A logger that drops everything, for embedding and tests. */
export const silentLogger: AgentLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
