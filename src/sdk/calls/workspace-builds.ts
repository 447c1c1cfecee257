import { ClientCore } from '../client-core.js';
import { followSocket } from '../follow-socket.js';
import type { Response, CreateWorkspaceBuildRequest, WorkspaceBuild, ProvisionerJobLog, WorkspaceBuildTimings } from '../wire/index.js';

/**
 * Workspace builds: starting one, its logs, state, parameters and timings.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class WorkspaceBuildsCalls extends ClientCore {
  createWorkspaceBuild(workspaceId: string, request: CreateWorkspaceBuildRequest): Promise<WorkspaceBuild> {
    return this.request('POST', `/workspaces/${encodeURIComponent(workspaceId)}/builds`, { body: request });
  }

  workspaceBuilds(workspaceId: string): Promise<WorkspaceBuild[]> {
    return this.request('GET', `/workspaces/${encodeURIComponent(workspaceId)}/builds`);
  }

  workspaceBuild(id: string): Promise<WorkspaceBuild> {
    return this.request('GET', `/workspacebuilds/${encodeURIComponent(id)}`);
  }

  workspaceBuildByNumber(user: string, workspace: string, buildNumber: number): Promise<WorkspaceBuild> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/workspace/${encodeURIComponent(workspace)}/builds/${buildNumber}`);
  }

  cancelWorkspaceBuild(id: string): Promise<Response> {
    return this.request('PATCH', `/workspacebuilds/${encodeURIComponent(id)}/cancel`);
  }

  workspaceBuildLogs(id: string): Promise<ProvisionerJobLog[]> {
    return this.request('GET', `/workspacebuilds/${encodeURIComponent(id)}/logs`);
  }

  /** Follows a build's logs until its job ends, or `signal` aborts. */
  followWorkspaceBuildLogs(id: string, onLog: (log: ProvisionerJobLog) => void, after?: number, signal?: AbortSignal): Promise<void> {
    return followSocket(
      this,
      `/workspacebuilds/${encodeURIComponent(id)}/logs`,
      { follow: true, ...(after === undefined ? {} : { after }) },
      (text) => onLog(JSON.parse(text) as ProvisionerJobLog),
      signal,
    );
  }

  /** The provisioner state a build recorded, as stored (template managers only). */
  async workspaceBuildState(id: string): Promise<Buffer> {
    return (await this.requestBytes('GET', `/workspacebuilds/${encodeURIComponent(id)}/state`)).body;
  }

  /** Replaces a build's provisioner state without building (template managers only). */
  updateWorkspaceBuildState(id: string, state: Uint8Array): Promise<void> {
    return this.request('PUT', `/workspacebuilds/${encodeURIComponent(id)}/state`, {
      body: { state: Buffer.from(state).toString('base64') },
    });
  }

  workspaceBuildParameters(id: string): Promise<{ name: string; value: string }[]> {
    return this.request('GET', `/workspacebuilds/${encodeURIComponent(id)}/parameters`);
  }

  /** Where one build spent its time, as {@link workspaceTimings} shows the latest. */
  workspaceBuildTimings(id: string): Promise<WorkspaceBuildTimings> {
    return this.request('GET', `/workspacebuilds/${encodeURIComponent(id)}/timings`);
  }
}
