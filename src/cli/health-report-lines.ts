import type { HealthMessage, HealthReport, HealthSeverity } from '../sdk/wire/index.js';

/** One section of the report as the CLI shows it: its verdict, the figures it measured and its findings. */
export interface HealthSectionLine {
  readonly title: string;
  readonly severity: HealthSeverity;
  readonly dismissed: boolean;
  /** The figures the check measured: latencies, status codes, counts. */
  readonly figures: string;
  /** Warnings with their codes, and the section's error as a finding of its own. */
  readonly findings: readonly HealthMessage[];
}

/** The sections in the order people read them, each with what its check measured. */
export function healthSectionLines(report: HealthReport): HealthSectionLine[] {
  const relayNode = Object.values(report.derp.regions)[0]?.node_reports[0];
  const relayRegion = Object.values(report.derp.regions)[0]?.region.RegionName ?? 'no region';
  const daemons = report.provisioner_daemons.items.map((item) => `${item.provisioner_daemon.name} ${item.provisioner_daemon.version}`);
  const proxies = report.workspace_proxy.workspace_proxies.regions.length;
  return [
    line('Access URL', report.access_url, () =>
      report.access_url.reachable
        ? `${report.access_url.access_url}/healthz answered ${report.access_url.status_code}`
        : `${report.access_url.access_url || 'not set'}: unreachable`,
    ),
    line('Database', report.database, () =>
      report.database.reachable
        ? `median round trip ${report.database.latency} (threshold ${report.database.threshold_ms}ms)`
        : 'unreachable',
    ),
    line('WebSocket', report.websocket, () =>
      report.websocket.healthy ? 'echo through the access URL' : `upgrade answered ${report.websocket.code}`,
    ),
    line('Relay', report.derp, () =>
      relayNode?.can_exchange_messages
        ? `round trip ${relayNode.round_trip_ping} through ${relayRegion} (WebSocket, no STUN)`
        : `no message crossed ${relayRegion}`,
    ),
    line('Provisioner daemons', report.provisioner_daemons, () =>
      daemons.length === 0 ? 'none active' : `${daemons.length} active: ${daemons.join(', ')}`,
    ),
    line('Workspace proxies', report.workspace_proxy, () => (proxies === 0 ? 'none (not used)' : `${proxies}`)),
  ];
}

function line(
  title: string,
  section: { severity: HealthSeverity; dismissed: boolean; warnings: readonly HealthMessage[]; error?: string | undefined },
  figures: () => string,
): HealthSectionLine {
  const findings: HealthMessage[] = [...section.warnings];
  if (section.error) {
    const [code = '', ...rest] = section.error.split(': ');
    findings.push(
      rest.length > 0 && /^E[A-Z]+\d*$/.test(code) ? { code, message: rest.join(': ') } : { code: 'EUNKNOWN', message: section.error },
    );
  }
  return { title, severity: section.severity, dismissed: section.dismissed, figures: figures(), findings };
}

/** The first line of the report: the overall verdict, the version and when it was checked. */
export function healthHeadline(report: HealthReport): string {
  return `Health: ${report.healthy ? 'healthy' : 'unhealthy'} (${report.severity}), cove ${report.service_version}, checked ${report.time}`;
}

/** The report as plain text, for pipes and files: one line per section, findings indented below. */
export function healthReportText(report: HealthReport): string {
  const lines = healthSectionLines(report);
  const width = Math.max(...lines.map((l) => l.title.length));
  const out = [healthHeadline(report)];
  for (const section of lines) {
    const dismissed = section.dismissed ? ' (dismissed)' : '';
    out.push(`${`[${section.severity}]`.padEnd(9)}  ${section.title.padEnd(width)}  ${section.figures}${dismissed}`);
    for (const finding of section.findings) out.push(`${' '.repeat(11)}${finding.code}: ${finding.message}`);
  }
  return `${out.join('\n')}\n`;
}

/** 1 when a section that is not dismissed is at `error`, else 0. */
export function healthExitCode(report: HealthReport): number {
  return healthSectionLines(report).some((section) => !section.dismissed && section.severity === 'error') ? 1 : 0;
}
