import { ClientCore } from '../client-core.js';
import type { HealthReport, HealthSettings } from '../wire/index.js';

/**
 * The deployment's health checks and their settings.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class HealthCalls extends ClientCore {
  /** The deployment's health report: the last one, or a new run with `force`. */
  healthReport(options: { readonly force?: boolean } = {}): Promise<HealthReport> {
    return this.request('GET', '/debug/health', { query: { force: options.force } });
  }

  healthSettings(): Promise<HealthSettings> {
    return this.request('GET', '/debug/health/settings');
  }

  updateHealthSettings(settings: HealthSettings): Promise<HealthSettings> {
    return this.request('PUT', '/debug/health/settings', { body: settings });
  }
}
