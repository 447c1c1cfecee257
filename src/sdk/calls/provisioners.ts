import { ClientCore } from '../client-core.js';
import type { TemplateVersionsCalls } from './template-versions.js';
import type { WorkspaceBuildsCalls } from './workspace-builds.js';
import type {
  Response,
  CreateProvisionerKeyRequest,
  CreateProvisionerKeyResponse,
  ProvisionerDaemon,
  ProvisionerJob,
  ProvisionerKey,
} from '../wire/index.js';

/**
 * A job is canceled through the calls of what it builds, which CoveClient installs beside these: the
 * merged declaration lets cancelProvisionerJob call them on the same client.
 */
export interface ProvisionersCalls
  extends Pick<WorkspaceBuildsCalls, 'cancelWorkspaceBuild'>, Pick<TemplateVersionsCalls, 'cancelTemplateVersion' | 'cancelDryRun'> {}

/**
 * Provisioner jobs, daemons and keys of an organization.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class ProvisionersCalls extends ClientCore {
  provisionerJobs(
    organization: string,
    query: { readonly limit?: number; readonly ids?: string; readonly status?: string; readonly tags?: string } = {},
  ): Promise<ProvisionerJob[]> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/provisionerjobs`, { query });
  }

  provisionerJob(organization: string, id: string): Promise<ProvisionerJob> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/provisionerjobs/${encodeURIComponent(id)}`);
  }

  /**
   * Cancels an organization's provisioner job. The API has no cancel route of its own for jobs: a
   * job is canceled through what it builds (its template version, workspace build or dry run),
   * whose route applies that resource's rules (who may cancel, whether it can still be canceled).
   */
  async cancelProvisionerJob(organization: string, id: string): Promise<Response> {
    const job = await this.provisionerJob(organization, id);
    const { template_version_id: versionId, workspace_build_id: buildId } = job.input;
    if (job.type === 'workspace_build' && buildId) return this.cancelWorkspaceBuild(buildId);
    if (job.type === 'template_version_import' && versionId) return this.cancelTemplateVersion(versionId);
    if (job.type === 'template_version_dry_run' && versionId) return this.cancelDryRun(versionId, job.id);
    throw new Error(`provisioner job ${job.id} (${job.type}) does not say what it builds, so it cannot be canceled`);
  }

  provisionerDaemons(organization: string): Promise<ProvisionerDaemon[]> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/provisionerdaemons`);
  }

  createProvisionerKey(organization: string, request: CreateProvisionerKeyRequest): Promise<CreateProvisionerKeyResponse> {
    return this.request('POST', `/organizations/${encodeURIComponent(organization)}/provisionerkeys`, { body: request });
  }

  provisionerKeys(organization: string): Promise<ProvisionerKey[]> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/provisionerkeys`);
  }

  deleteProvisionerKey(organization: string, name: string): Promise<void> {
    return this.request('DELETE', `/organizations/${encodeURIComponent(organization)}/provisionerkeys/${encodeURIComponent(name)}`);
  }
}
