import { ClientCore } from '../client-core.js';
import type {
  AppearanceConfig,
  AvailableExperiments,
  BuildInfo,
  DeploymentConfig,
  DeploymentStats,
  Experiments,
  RegionsResponse,
  SshConfig,
  UpdateAppearanceConfig,
  UpdateCheck,
} from '../wire/index.js';

/**
 * The deployment as a whole: build, configuration, statistics, experiments.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class GeneralCalls extends ClientCore {
  buildInfo(): Promise<BuildInfo> {
    return this.request('GET', '/buildinfo');
  }

  updateCheck(): Promise<UpdateCheck> {
    return this.request('GET', '/updatecheck');
  }

  deploymentStats(): Promise<DeploymentStats> {
    return this.request('GET', '/deployment/stats');
  }

  deploymentConfig(): Promise<DeploymentConfig> {
    return this.request('GET', '/deployment/config');
  }

  deploymentSsh(): Promise<SshConfig> {
    return this.request('GET', '/deployment/ssh');
  }

  experiments(): Promise<Experiments> {
    return this.request('GET', '/experiments');
  }

  availableExperiments(): Promise<AvailableExperiments> {
    return this.request('GET', '/experiments/available');
  }

  reportCsp(report: Record<string, unknown>): Promise<void> {
    return this.request('POST', '/csp/reports', { body: { 'csp-report': report } });
  }

  /** The dashboard's name, logo, banners and help links. */
  appearance(): Promise<AppearanceConfig> {
    return this.request('GET', '/appearance');
  }

  updateAppearance(config: UpdateAppearanceConfig): Promise<UpdateAppearanceConfig> {
    return this.request('PUT', '/appearance', { body: config });
  }

  /** Where apps and terminals are reached: the one primary region. */
  regions(): Promise<RegionsResponse> {
    return this.request('GET', '/regions');
  }
}
