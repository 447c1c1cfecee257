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

  accept(stream: Duplex): void {
    this.#server ??= import('./agent-ssh-server.js').then(({ createAgentSshServer }) => {
      this.#loaded = createAgentSshServer(this.options);
      return this.#loaded;
    });
    void this.#server.then(
      (server) => (this.#closed ? stream.destroy() : server.accept(stream)),
      (error: unknown) => {
        this.options.logger.error({ err: error }, 'could not start the SSH server');
        stream.destroy();
      },
    );
  }

  close(): void {
    this.#closed = true;
    this.#loaded?.close();
  }
}
