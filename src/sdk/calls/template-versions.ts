import { ClientCore } from '../client-core.js';
import { followSocket } from '../follow-socket.js';
import type {
  Response,
  CreateTemplateVersionRequest,
  DynamicParametersRequest,
  DynamicParametersResponse,
  PatchTemplateVersionRequest,
  ProvisionerJob,
  ProvisionerJobLog,
  TemplateVersion,
  TemplateVersionParameter,
  TemplateVersionPreset,
  TemplateVersionVariable,
  WorkspaceResource,
} from '../wire/index.js';

/**
 * Template versions: their import job, logs, parameters and dry runs.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class TemplateVersionsCalls extends ClientCore {
  createTemplateVersion(organization: string, request: CreateTemplateVersionRequest): Promise<TemplateVersion> {
    return this.request('POST', `/organizations/${encodeURIComponent(organization)}/templateversions`, { body: request });
  }

  templateVersion(id: string): Promise<TemplateVersion> {
    return this.request('GET', `/templateversions/${encodeURIComponent(id)}`);
  }

  updateTemplateVersion(id: string, request: PatchTemplateVersionRequest): Promise<TemplateVersion> {
    return this.request('PATCH', `/templateversions/${encodeURIComponent(id)}`, { body: request });
  }

  cancelTemplateVersion(id: string): Promise<Response> {
    return this.request('PATCH', `/templateversions/${encodeURIComponent(id)}/cancel`);
  }

  archiveTemplateVersion(id: string, archive = true): Promise<Response> {
    return this.request('POST', `/templateversions/${encodeURIComponent(id)}/${archive ? 'archive' : 'unarchive'}`);
  }

  templateVersionLogs(id: string, range: { readonly after?: number; readonly before?: number } = {}): Promise<ProvisionerJobLog[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(id)}/logs`, { query: range });
  }

  /**
   * Follows a version's import logs over a WebSocket: calls `onLog` for the backlog after `after`
   * and then for each new line, and resolves when the job has finished and the stream closed.
   */
  followTemplateVersionLogs(id: string, onLog: (log: ProvisionerJobLog) => void, after?: number): Promise<void> {
    return followSocket(
      this,
      `/templateversions/${encodeURIComponent(id)}/logs`,
      { follow: true, ...(after === undefined ? {} : { after }) },
      (text) => onLog(JSON.parse(text) as ProvisionerJobLog),
    );
  }

  templateVersionResources(id: string): Promise<WorkspaceResource[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(id)}/resources`);
  }

  templateVersionRichParameters(id: string): Promise<TemplateVersionParameter[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(id)}/rich-parameters`);
  }

  templateVersionVariables(id: string): Promise<TemplateVersionVariable[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(id)}/variables`);
  }

  templateVersionPresets(id: string): Promise<TemplateVersionPreset[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(id)}/presets`);
  }

  /** Plans a workspace from a version without creating anything. */
  createDryRun(
    versionId: string,
    request: { readonly workspace_name?: string; readonly rich_parameter_values?: readonly { name: string; value: string }[] } = {},
  ): Promise<ProvisionerJob> {
    return this.request('POST', `/templateversions/${encodeURIComponent(versionId)}/dry-run`, { body: request });
  }

  dryRun(versionId: string, jobId: string): Promise<ProvisionerJob> {
    return this.request('GET', `/templateversions/${encodeURIComponent(versionId)}/dry-run/${encodeURIComponent(jobId)}`);
  }

  dryRunResources(versionId: string, jobId: string): Promise<WorkspaceResource[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(versionId)}/dry-run/${encodeURIComponent(jobId)}/resources`);
  }

  dryRunLogs(versionId: string, jobId: string): Promise<ProvisionerJobLog[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(versionId)}/dry-run/${encodeURIComponent(jobId)}/logs`);
  }

  cancelDryRun(versionId: string, jobId: string): Promise<Response> {
    return this.request('PATCH', `/templateversions/${encodeURIComponent(versionId)}/dry-run/${encodeURIComponent(jobId)}/cancel`);
  }

  /** Evaluates a version's parameters against form inputs, with diagnostics for invalid ones. */
  evaluateDynamicParameters(versionId: string, request: DynamicParametersRequest): Promise<DynamicParametersResponse> {
    return this.request('POST', `/templateversions/${encodeURIComponent(versionId)}/dynamic-parameters/evaluate`, { body: request });
  }
}
