import { ClientCore } from '../client-core.js';
import { readEventStream } from '../event-stream.js';
import { followSocket } from '../follow-socket.js';
import type {
  Response,
  IssueReconnectingPTYSignedTokenRequest,
  IssueReconnectingPTYSignedTokenResponse,
  PatchAgentLogsRequest,
  AgentExternalAuthQuery,
  AgentExternalAuthResponse,
  PostLogSourceRequest,
  WorkspaceAgent,
  WorkspaceAgentLog,
  WorkspaceAgentLogSource,
  WorkspaceAgentMetadata,
} from '../wire/index.js';

/**
 * Workspace agents: their logs, and the calls an agent makes with its own token.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class WorkspaceAgentsCalls extends ClientCore {
  workspaceAgent(id: string): Promise<WorkspaceAgent> {
    return this.request('GET', `/workspaceagents/${encodeURIComponent(id)}`);
  }

  workspaceAgentLogs(id: string, range: { readonly after?: number; readonly before?: number } = {}): Promise<WorkspaceAgentLog[]> {
    return this.request('GET', `/workspaceagents/${encodeURIComponent(id)}/logs`, { query: range });
  }

  /** Follows an agent's logs until the agent shuts down, its build is replaced, or `signal` aborts. */
  followWorkspaceAgentLogs(id: string, onLog: (log: WorkspaceAgentLog) => void, after?: number, signal?: AbortSignal): Promise<void> {
    return followSocket(
      this,
      `/workspaceagents/${encodeURIComponent(id)}/logs`,
      { follow: true, ...(after === undefined ? {} : { after }) },
      (text) => onLog(JSON.parse(text) as WorkspaceAgentLog),
      signal,
    );
  }

  /**
   * Watches an agent's metadata items over server-sent events: `onMetadata` gets the list on
   * connect, after every change and every few seconds (fresh ages), until `signal` aborts.
   */
  watchWorkspaceAgentMetadata(id: string, onMetadata: (metadata: WorkspaceAgentMetadata[]) => void, signal: AbortSignal): Promise<void> {
    return readEventStream(
      this,
      `/workspaceagents/${encodeURIComponent(id)}/watch-metadata`,
      (event, data) => {
        if (event === 'data' && data !== '') onMetadata(JSON.parse(data) as WorkspaceAgentMetadata[]);
      },
      signal,
    );
  }

  /** For an agent (a client holding its token): stores a batch of its logs. */
  patchAgentLogs(request: PatchAgentLogsRequest): Promise<Response> {
    return this.request('PATCH', '/workspaceagents/me/logs', { body: request });
  }

  /**
   * For an agent: the workspace owner's token for an external auth provider, named by `id` or found
   * by `match`ing a git remote URL; with `listen`, waits until a new token is issued.
   */
  agentExternalAuth(
    query: Omit<AgentExternalAuthQuery, 'url' | 'listen'> & { readonly listen?: boolean },
  ): Promise<AgentExternalAuthResponse> {
    return this.request('GET', '/workspaceagents/me/external-auth', {
      query: { match: query.match, id: query.id, listen: query.listen ? 'true' : undefined },
    });
  }

  /** For an agent: declares (or renames) one of its log sources. */
  postAgentLogSource(request: PostLogSourceRequest): Promise<WorkspaceAgentLogSource> {
    return this.request('POST', '/workspaceagents/me/log-source', { body: request });
  }

  /** A one-minute token that opens the terminal socket at `url` as the caller, for a socket that cannot carry the session. */
  issueReconnectingPtySignedToken(request: IssueReconnectingPTYSignedTokenRequest): Promise<IssueReconnectingPTYSignedTokenResponse> {
    return this.request('POST', '/applications/reconnecting-pty-signed-token', { body: request });
  }
}
