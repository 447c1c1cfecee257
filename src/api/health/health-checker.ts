import { randomBytes, timingSafeEqual } from 'node:crypto';
import { VERSION } from '../../lib/version.js';
import { SYSTEM_SUBJECTS } from '../../rbac/system-subjects.js';
import type { HealthReport, HealthSection, HealthSeverity, WorkspaceProxyReport } from '../../sdk/wire/index.js';
import type { StoreHandle } from '../../store/store.js';
import type { AgentRelay } from '../relay/agent-relay.js';
import { checkAccessUrl } from './access-url-check.js';
import { checkDatabase } from './database-check.js';
import { verdict, worstSeverity } from './health-severity.js';
import { checkProvisionerDaemons } from './provisioner-daemons-check.js';
import { checkRelay } from './relay-check.js';
import { RelayProbeAgent } from './relay-probe.js';
import { checkWebsocket } from './websocket-check.js';

/** What the checker needs from the daemon. */
export interface HealthCheckerOptions {
  readonly store: StoreHandle;
  readonly relay: AgentRelay;
  /** The access URL as it is now: with the default one, known only once the daemon listens. */
  readonly accessUrl: () => string;
  readonly databaseThresholdMs: number;
  /** How old the last report may be before a request runs the checks again. */
  readonly refreshMs: number;
}

/** A report with the time it was made. */
interface Checked {
  readonly report: HealthReport;
  readonly at: number;
}

/**
 * Runs every section of the health report with real probes and keeps the last report. Runs are
 * collapsed: whoever asks while one is under way gets its result. The probes reach the daemon
 * through its access URL carrying a key that lives only in this process.
 */
export class HealthChecker {
  /** Presented by the probes in {@link HEALTH_PROBE_HEADER}; never leaves the process. */
  readonly probeKey = randomBytes(24).toString('base64url');
  readonly relayProbe: RelayProbeAgent;
  #last: Checked | undefined;
  #running: Promise<Checked> | undefined;

  constructor(private readonly options: HealthCheckerOptions) {
    this.relayProbe = new RelayProbeAgent(options.relay, options.accessUrl, this.probeKey);
  }

  /** Whether a presented header value is this process's probe key. */
  isProbe(presented: string | string[] | undefined): boolean {
    if (typeof presented !== 'string') return false;
    const left = Buffer.from(presented);
    const right = Buffer.from(this.probeKey);
    return left.length === right.length && timingSafeEqual(left, right);
  }

  /** The last report if it is recent enough and `force` is not set; else a new one. */
  async report(force = false): Promise<HealthReport> {
    const last = this.#last;
    if (!force && last && Date.now() - last.at < this.options.refreshMs) return last.report;
    return (await this.refresh()).report;
  }

  /** Runs the checks now, or joins the run under way. */
  refresh(): Promise<Checked> {
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #run(): Promise<Checked> {
    // The report is the deployment's, made on a timer or for whoever forces a run, and read by
    // every operator: the checks run as their own subject, not as the caller.
    const store = this.options.store.as(SYSTEM_SUBJECTS.healthCheck);
    const accessUrl = this.options.accessUrl();
    // Alone first: the probes below are served by this same process, and their work would be
    // counted in the database's round trips.
    const database = await checkDatabase(store, this.options.databaseThresholdMs);
    const [access, websocket, derp, provisioners] = await Promise.all([
      checkAccessUrl(accessUrl),
      checkWebsocket(accessUrl, this.probeKey),
      checkRelay(accessUrl, this.probeKey, this.relayProbe),
      // Its list is in the database: when that is down, the report still says so rather than failing whole.
      checkProvisionerDaemons(store, this.options.store.clock.now()).catch(() => ({
        items: [],
        ...verdict({ error: { code: 'EUNKNOWN', message: 'Could not list the provisioner daemons: the database did not answer.' } }),
      })),
    ]);
    const workspaceProxy: WorkspaceProxyReport = { ...verdict({}), workspace_proxies: { regions: [] } };
    const report: HealthReport = {
      time: this.options.store.clock.now().toISOString(),
      healthy: true,
      severity: 'ok',
      service_version: VERSION,
      coder_version: VERSION,
      access_url: access,
      database,
      websocket,
      derp,
      provisioner_daemons: provisioners,
      workspace_proxy: workspaceProxy,
    };
    const checked = { report: withDismissals(report, []), at: Date.now() };
    this.#last = checked;
    return checked;
  }
}

/**
 * The report with the dismissed sections flagged and left out of the overall verdict: `healthy`
 * when every other section is, `severity` the worst of the others.
 */
export function withDismissals(report: HealthReport, dismissed: readonly HealthSection[]): HealthReport {
  const flag = <T extends { readonly healthy: boolean; readonly severity: HealthSeverity }>(name: HealthSection, section: T) => ({
    ...section,
    dismissed: dismissed.includes(name),
  });
  const sections = {
    access_url: flag('AccessURL', report.access_url),
    database: flag('Database', report.database),
    websocket: flag('Websocket', report.websocket),
    derp: flag('DERP', report.derp),
    provisioner_daemons: flag('ProvisionerDaemons', report.provisioner_daemons),
    workspace_proxy: flag('WorkspaceProxy', report.workspace_proxy),
  };
  const counted = Object.values(sections).filter((section) => !section.dismissed);
  return {
    ...report,
    ...sections,
    healthy: counted.every((section) => section.healthy),
    severity: worstSeverity(...counted.map((section) => section.severity)),
  };
}
