import { ClientCore } from '../client-core.js';
import { readEventStream } from '../event-stream.js';
import type {
  Response,
  CreateWorkspaceRequest,
  MinimalUser,
  PortShare,
  Workspace,
  WorkspacesResponse,
  WorkspaceBuildTimings,
  UpdateWorkspaceACL,
  WorkspaceACL,
  WorkspaceSharingSettings,
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
  watchWorkspace(id: string, onWorkspace: (workspace: Workspace) => void, signal: AbortSignal): Promise<void> {
    return readEventStream(
      this,
      `/workspaces/${encodeURIComponent(id)}/watch`,
      (event, data) => {
        if (event === 'data' && data !== '') onWorkspace(JSON.parse(data) as Workspace);
      },
      signal,
    );
  }

  /** Whom the workspace could be shared with: the other active members of its organization. */
  workspaceAvailableUsers(
    id: string,
    query: { readonly q?: string; readonly limit?: number; readonly offset?: number } = {},
  ): Promise<MinimalUser[]> {
    return this.request('GET', `/workspaces/${encodeURIComponent(id)}/available-users`, { query });
  }

  /** Who the workspace is shared with, and with which role. */
  workspaceAcl(id: string): Promise<WorkspaceACL> {
    return this.request('GET', `/workspaces/${encodeURIComponent(id)}/acl`);
  }

  /** Shares the workspace with users and groups by id (`use` or `admin`), or stops sharing it (`''`). */
  async updateWorkspaceAcl(id: string, request: UpdateWorkspaceACL): Promise<void> {
    await this.request('PATCH', `/workspaces/${encodeURIComponent(id)}/acl`, { body: request });
  }

  /** Stops sharing the workspace with anyone. */
  async deleteWorkspaceAcl(id: string): Promise<void> {
    await this.request('DELETE', `/workspaces/${encodeURIComponent(id)}/acl`);
  }

  /** Whether the organization lets its workspaces be shared. */
  workspaceSharingSettings(organization: string): Promise<WorkspaceSharingSettings> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/settings/workspace-sharing`);
  }

  updateWorkspaceSharingSettings(organization: string, request: WorkspaceSharingSettings): Promise<WorkspaceSharingSettings> {
    return this.request('PATCH', `/organizations/${encodeURIComponent(organization)}/settings/workspace-sharing`, { body: request });
  }
}
