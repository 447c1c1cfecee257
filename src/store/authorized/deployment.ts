import { StoreFamily } from './store-family.js';
import { deploymentStatsInputs, type DeploymentStatsInputs } from '../queries/deployment-stats.js';
import { siteObject } from '../../rbac/index.js';
import * as siteConfig from '../queries/site-config.js';
import * as healthChecks from '../queries/health-checks.js';
import * as metricCounts from '../queries/metric-counts.js';
import * as provisionerDaemons from '../queries/provisioner-daemons.js';

/** Deployment-wide facts: site settings, health checks, metrics and stats. */
export class DeploymentStore extends StoreFamily {
  /** The value stored under `key`, storing `value` first if there is none; needs read and create on site settings. */
  async ensureSiteValue(key: string, value: string): Promise<string> {
    this.require('read', siteObject('system'));
    this.require('create', siteObject('system'));
    return siteConfig.ensureSiteValue(this.db, key, value);
  }

  /** The health report sections an operator dismissed; needs read on the deployment config. */
  async listDismissedHealthChecks(): Promise<string[]> {
    this.require('read', siteObject('deployment_config'));
    return healthChecks.listDismissedSections(this.db);
  }

  /** Makes `sections` the dismissed health report sections; needs update on the deployment config. */
  async setDismissedHealthChecks(sections: readonly string[]): Promise<void> {
    this.require('update', siteObject('deployment_config'));
    const wanted = [...new Set(sections)].sort();
    await this.audited(
      async (trx) => {
        const before = await healthChecks.listDismissedSections(trx);
        await healthChecks.replaceDismissedSections(trx, wanted, this.store.nowIso());
        return before;
      },
      (before) => ({
        resourceType: 'health_settings',
        action: 'write',
        // The deployment has one set of health settings; the reference names it by the nil id too.
        resourceId: '00000000-0000-0000-0000-000000000000',
        resourceTarget: 'health_settings',
        old: { dismissed_healthchecks: before },
        new: { dismissed_healthchecks: wanted },
      }),
    );
  }

  /** One round trip to the database, for the health check; needs read on debug information. */
  async pingDatabase(): Promise<void> {
    this.require('read', siteObject('debug_info'));
    await healthChecks.pingDatabase(this.db);
  }

  /** The provisioner daemons of every organization seen since `since`; needs read on daemons everywhere. */
  async listProvisionerDaemonsSeenSince(since: Date): Promise<(provisionerDaemons.ProvisionerDaemonRow & { key_name: string | null })[]> {
    this.require('read', siteObject('provisioner_daemon'));
    return provisionerDaemons.listDaemonsSeenSince(this.db, since.toISOString());
  }

  /** Live workspaces counted by the state of their latest build; needs read on every workspace, dormant ones too. */
  async countWorkspacesByLatestBuild(): Promise<metricCounts.LatestBuildStateCount[]> {
    this.require('read', siteObject('workspace'));
    this.require('read', siteObject('workspace_dormant'));
    return metricCounts.countLatestBuildStates(this.db);
  }

  /** Provisioner jobs queued and running, in every organization; needs read on every job. */
  async countActiveProvisionerJobs(): Promise<{ readonly queued: number; readonly running: number }> {
    this.require('read', siteObject('provisioner_jobs'));
    return metricCounts.countActiveJobs(this.db);
  }

  /** The latest build of every live workspace with its job, and agent reports since `since`. */
  async statsInputs(since: Date): Promise<DeploymentStatsInputs> {
    this.require('read', siteObject('deployment_stats'));
    return deploymentStatsInputs(this.db, since.toISOString());
  }
}
