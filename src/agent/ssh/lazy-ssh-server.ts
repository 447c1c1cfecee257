import type { Duplex } from 'node:stream';
import type { AgentLogger } from '../agent-logger.js';
import type { SshAcceptor } from '../relay/relay-streams.js';
import type { AgentSshServer } from './agent-ssh-server.js';

/** The SSH server, loaded and started on the first SSH connection: most agents never see one. */
export class LazySshServer implements SshAcceptor {
  #server: Promise<AgentSshServer> | undefined;
  #loaded: AgentSshServer | undefined;
  #closed = false;

  constructor(
    private readonly options: { readonly directory: string; readonly env: Readonly<Record<string, string>>; readonly logger: AgentLogger },
  ) {}

  get sessionCounts(): AgentSshServer['sessionCounts'] {
    return this.#loaded?.sessionCounts ?? { ssh: 0, vscode: 0, jetbrains: 0 };
  }

  /**
   * Loads and starts the server the first time; rejects with the reason it cannot start. A failed
   * start is not kept: the next connection tries again rather than finding SSH broken for as long
   * as the agent runs.
   */
  start(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the agent is shutting down'));
    const server = (this.#server ??= import('./agent-ssh-server.js').then(({ createAgentSshServer }) => {
      this.#loaded = createAgentSshServer(this.options);
      return this.#loaded;
    }));
    return server.then(
      () => undefined,
      (error: unknown) => {
        if (this.#server === server) this.#server = undefined;
        throw error;
      },
    );
  }

  /** Serves one connection; only after {@link start} resolved. */
  accept(stream: Duplex, exited?: (exitStatus: number) => void): void {
    if (this.#closed || this.#loaded === undefined) {
      stream.destroy();
      return;
    }
    this.#loaded.accept(stream, exited);
  }

  close(): void {
    this.#closed = true;
    this.#loaded?.close();
  }
}
