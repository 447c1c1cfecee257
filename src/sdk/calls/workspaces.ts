import type { IncomingMessage } from 'node:http';
import { ApiError } from '../api-error.js';
import { ClientCore, parseErrorBody } from '../client-core.js';
import { openHttpRequest } from '../http-transport.js';
import type {
  Response,
  CreateWorkspaceRequest,
  MinimalUser,
  PortShare,
  Workspace,
  WorkspacesResponse,
  WorkspaceBuildTimings,
} from '../wire/index.js';

/**
 * Workspaces: creating, finding and changing them, their schedules and shared ports.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class WorkspacesCalls extends ClientCore {
  createWorkspace(user: string, request: CreateWorkspaceRequest): Promise<Workspace> {
    return this.request('POST', `/users/${encodeURIComponent(user)}/workspaces`, { body: request });
  }

  createOrganizationWorkspace(organization: string, user: string, request: CreateWorkspaceRequest): Promise<Workspace> {
    return this.request('POST', `/organizations/${encodeURIComponent(organization)}/members/${encodeURIComponent(user)}/workspaces`, {
      body: request,
    });
  }

  /** Workspaces the caller can see; `q` takes `owner:`, `template:`, `name:`, `status:`, `outdated:`, `dormant:`, `has-agent:`. */
  workspaces(query: { readonly q?: string; readonly limit?: number; readonly offset?: number } = {}): Promise<WorkspacesResponse> {
    return this.request('GET', '/workspaces', { query });
  }

  workspace(id: string, includeDeleted = false): Promise<Workspace> {
    return this.request('GET', `/workspaces/${encodeURIComponent(id)}`, { query: includeDeleted ? { include_deleted: true } : {} });
  }

  workspaceByOwnerAndName(user: string, name: string, includeDeleted = false): Promise<Workspace> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/workspace/${encodeURIComponent(name)}`, {
      query: includeDeleted ? { include_deleted: true } : {},
    });
  }

  renameWorkspace(id: string, name: string): Promise<void> {
    return this.request('PATCH', `/workspaces/${encodeURIComponent(id)}`, { body: { name } });
  }

  /** Where a workspace's latest build spent its time: provisioner stages, agent connection and scripts. */
  workspaceTimings(id: string): Promise<WorkspaceBuildTimings> {
    return this.request('GET', `/workspaces/${encodeURIComponent(id)}/timings`);
  }

  favoriteWorkspace(id: string, favorite = true): Promise<void> {
    return this.request(favorite ? 'PUT' : 'DELETE', `/workspaces/${encodeURIComponent(id)}/favorite`);
  }

  /** Records use of a workspace (which also moves its shutdown deadline out). */
  reportWorkspaceUsage(id: string, body: { readonly agent_id?: string; readonly app_name?: string } = {}): Promise<void> {
    return this.request('POST', `/workspaces/${encodeURIComponent(id)}/usage`, { body });
  }

  portShares(workspaceId: string): Promise<{ shares: PortShare[] }> {
    return this.request('GET', `/workspaces/${encodeURIComponent(workspaceId)}/port-share`);
  }

  sharePort(
    workspaceId: string,
    share: { readonly agent_name: string; readonly port: number; readonly share_level: string; readonly protocol?: string },
  ): Promise<PortShare> {
    return this.request('POST', `/workspaces/${encodeURIComponent(workspaceId)}/port-share`, { body: share });
  }

  unsharePort(workspaceId: string, share: { readonly agent_name: string; readonly port: number }): Promise<void> {
    return this.request('DELETE', `/workspaces/${encodeURIComponent(workspaceId)}/port-share`, { body: share });
  }

  /** Whether starts move the workspace to its template's active version (`always`) or keep its version (`never`). */
  updateWorkspaceAutomaticUpdates(id: string, policy: 'always' | 'never'): Promise<void> {
    return this.request('PUT', `/workspaces/${encodeURIComponent(id)}/autoupdates`, { body: { automatic_updates: policy } });
  }

  /** Sets the autostart schedule (`CRON_TZ=Europe/London 30 9 * * 1-5`); null turns autostart off. */
  updateWorkspaceAutostart(id: string, schedule: string | null): Promise<void> {
    return this.request('PUT', `/workspaces/${encodeURIComponent(id)}/autostart`, { body: { schedule } });
  }

  /** Sets how long the workspace runs after each start; null stops it only by hand. */
  updateWorkspaceTtl(id: string, ttlMs: number | null): Promise<void> {
    return this.request('PUT', `/workspaces/${encodeURIComponent(id)}/ttl`, { body: { ttl_ms: ttlMs } });
  }

  /** Moves the running build's deadline to `deadline` (an ISO time at least 30 minutes ahead). */
  extendWorkspace(id: string, deadline: string): Promise<Response> {
    return this.request('PUT', `/workspaces/${encodeURIComponent(id)}/extend`, { body: { deadline } });
  }

  /** Marks a workspace dormant or wakes it; undefined when it already was (304). */
  setWorkspaceDormant(id: string, dormant: boolean): Promise<Workspace | undefined> {
    return this.request('PUT', `/workspaces/${encodeURIComponent(id)}/dormant`, { body: { dormant } });
  }

  /** Whether the next autostart would fail because the active version needs new parameter values. */
  resolveAutostart(id: string): Promise<{ parameter_mismatch: boolean }> {
    return this.request('GET', `/workspaces/${encodeURIComponent(id)}/resolve-autostart`);
  }

  /**
   * Watches a workspace over server-sent events: `onWorkspace` gets it on connect and after every
   * change, until `signal` aborts.
   */
  async watchWorkspace(id: string, onWorkspace: (workspace: Workspace) => void, signal: AbortSignal): Promise<void> {
    const headers: Record<string, string> = { ...this.baseHeaders(), accept: 'text/event-stream' };
    const url = new URL(`${this.url}/api/v2/workspaces/${encodeURIComponent(id)}/watch`);
    let response: IncomingMessage;
    try {
      response = await openHttpRequest(url, { method: 'GET', headers, signal });
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    if (response.statusCode !== 200) {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      throw new ApiError(
        response.statusCode ?? 0,
        'GET',
        url.toString(),
        parseErrorBody(Buffer.concat(chunks).toString('utf8'), response.statusCode ?? 0),
      );
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (event === 'data' && data) onWorkspace(JSON.parse(data) as Workspace);
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  }

  /** Whom the workspace could be shared with: the other active members of its organization. */
  workspaceAvailableUsers(
    id: string,
    query: { readonly q?: string; readonly limit?: number; readonly offset?: number } = {},
  ): Promise<MinimalUser[]> {
    return this.request('GET', `/workspaces/${encodeURIComponent(id)}/available-users`, { query });
  }
}
