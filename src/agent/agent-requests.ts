import type { AgentMessage, AgentRequestMethod } from '../sdk/wire/index.js';
import { AgentRequestError } from './agent-request-error.js';
import { createContainerLister } from './containers.js';
import { createListeningPortsReader } from './listening-ports.js';

type AgentResponse = Extract<AgentMessage, { type: 'response' }>;

/** What the agent answers the daemon's requests with. */
export interface AgentRequestsOptions {
  /** Where devcontainer rebuild output goes. */
  readonly onDevcontainerLog: (line: string) => void;
}

/**
 * Answers the daemon's questions about the workspace: the ports listening in it, and its
 * containers (and rebuilding a devcontainer). Every answer is a `response`; a failure carries the
 * HTTP status the user should see.
 */
export class AgentRequests {
  readonly #ports = createListeningPortsReader();
  readonly #containers: ReturnType<typeof createContainerLister>;

  constructor(options: AgentRequestsOptions) {
    this.#containers = createContainerLister({ onLog: options.onDevcontainerLog });
  }

  async answer(requestId: string, method: AgentRequestMethod, params: Readonly<Record<string, string>>): Promise<AgentResponse> {
    try {
      return { type: 'response', request_id: requestId, result: await this.#run(method, params) };
    } catch (error) {
      if (error instanceof AgentRequestError)
        return { type: 'response', request_id: requestId, error: { status: error.status, message: error.message, detail: error.detail } };
      return {
        type: 'response',
        request_id: requestId,
        error: { status: 500, message: `The agent could not answer "${method}".`, detail: (error as Error).message },
      };
    }
  }

  #run(method: AgentRequestMethod, params: Readonly<Record<string, string>>): Promise<unknown> {
    switch (method) {
      case 'listening_ports':
        return this.#ports.read().then((ports) => ({ ports }));
      case 'containers':
        return this.#containers.list();
      case 'recreate_devcontainer':
        return this.#containers.recreate(params['id'] ?? '');
    }
  }
}
