import type { CoveClient } from '../../sdk/client.js';
import type { Workspace } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import { mapLimit } from './map-limit.js';
import { TOKEN_PARAMETER } from './scaletest-run.js';
import { SimulatedAgent, newSimulatedAgentCounters, type SimulatedAgentOptions } from './simulated-agent.js';

/** How the agents of a fleet behave; see {@link SimulatedAgentOptions}. */
export interface FleetOptions {
  readonly statsIntervalSeconds?: number;
  readonly logs?: boolean;
  /** The share of agents that look busy in their stats (0 to 1); a quarter by default. */
  readonly activeShare?: number;
}

/** Many simulated agents sharing their counters: a scale test's workspaces without machines. */
export class SimulatedAgentFleet {
  readonly counters = newSimulatedAgentCounters();
  readonly agents: readonly SimulatedAgent[];

  constructor(url: string, tokens: readonly string[], options: FleetOptions = {}) {
    const every = Math.round(1 / Math.max(options.activeShare ?? 0.25, 1e-6));
    this.agents = tokens.map(
      (token, i) =>
        new SimulatedAgent(token, {
          url,
          counters: this.counters,
          active: i % every === 0,
          ...(options.statsIntervalSeconds === undefined ? {} : { statsIntervalSeconds: options.statsIntervalSeconds }),
          ...(options.logs === undefined ? {} : { logs: options.logs }),
        }),
    );
  }

  /**
   * Connects every agent, `concurrency` at a time, and waits (up to `timeoutMs`) until all of them
   * have their manifest; resolves with how many did.
   */
  async connect(concurrency: number, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    await mapLimit(this.agents, concurrency, (agent) => agent.connect());
    // A refused first attempt retries on its own with backoff; wait for those.
    while (this.counters.connectedNow < this.agents.length && Date.now() < deadline) await sleep(100);
    return this.counters.connectedNow;
  }

  /** Disconnects every agent and waits (up to 10 s) for the daemon to close their sockets. */
  async stop(): Promise<void> {
    for (const agent of this.agents) agent.stop();
    const deadline = Date.now() + 10_000;
    while (this.agents.some((agent) => !agent.closed) && Date.now() < deadline) await sleep(50);
  }
}

/**
 * The agent token each workspace was created with under `--simulated-agents` (its latest build's
 * {@link TOKEN_PARAMETER}); a workspace created without one is an error saying what to do.
 */
export async function simulatedAgentTokens(client: CoveClient, workspaces: readonly Workspace[], concurrency: number): Promise<string[]> {
  return mapLimit(workspaces, concurrency, async (workspace) => {
    const parameters = await client.workspaceBuildParameters(workspace.latest_build.id);
    const token = parameters.find((p) => p.name === TOKEN_PARAMETER)?.value;
    if (!token)
      throw new CliError(`Workspace ${workspace.owner_name}/${workspace.name} has no simulated agent token.`, {
        hint: 'Create the workspaces with "cove scaletest create-workspaces --simulated-agents", or leave out --simulated-agents to use their real agents.',
      });
    return token;
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
