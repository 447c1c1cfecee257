/** The workspace agent (`cove agent`): reached by the CLI only through a dynamic import. */
export { startAgent, type AgentHandle, type AgentOptions, type StatsSource } from './agent.js';
export { silentLogger, type AgentLogger } from './agent-logger.js';
export { gitAskpassProgram } from './git-askpass-program.js';
export { sessionEnvironment, expandPath, type SessionEnvironmentInput } from './session-environment.js';
export {
  AGENT_AUTH_METHODS,
  authenticateWithInstanceIdentity,
  waitForInstanceToken,
  type AgentAuthMethod,
  type InstanceIdentityMethod,
} from './instance-identity.js';
