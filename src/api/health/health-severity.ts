import type { HealthMessage, HealthSeverity } from '../../sdk/wire/index.js';

const ORDER: Readonly<Record<HealthSeverity, number>> = { ok: 0, warning: 1, error: 2 };

/** The worse of severities; `ok` for none. */
export function worstSeverity(...severities: readonly HealthSeverity[]): HealthSeverity {
  return severities.reduce<HealthSeverity>((worst, next) => (ORDER[next] > ORDER[worst] ? next : worst), 'ok');
}

/** The fields every section shares, before dismissals are known. */
export interface SectionVerdict {
  readonly dismissed: boolean;
  readonly healthy: boolean;
  readonly severity: HealthSeverity;
  readonly warnings: HealthMessage[];
  /** `CODE: message`; absent when the check found no error, as the reference leaves it out. */
  readonly error?: string;
}

/**
 * A section's verdict from what its check found: the worst of its warnings and its error. A
 * section is unhealthy only at `error`, except the access URL, which is unhealthy at any finding
 * (the reference's rule: a deployment nobody can reach at its URL is not healthy).
 */
export function verdict(
  findings: {
    readonly warnings?: readonly HealthMessage[];
    readonly error?: HealthMessage | undefined;
    /** For a warning that is an error, as the reference reports having no provisioner daemons. */
    readonly severity?: HealthSeverity;
  },
  options: { readonly strict?: boolean } = {},
): SectionVerdict {
  const warnings = [...(findings.warnings ?? [])];
  const severity = worstSeverity(findings.error ? 'error' : warnings.length > 0 ? 'warning' : 'ok', findings.severity ?? 'ok');
  return {
    dismissed: false,
    healthy: options.strict ? severity === 'ok' : severity !== 'error',
    severity,
    warnings,
    ...(findings.error ? { error: `${findings.error.code}: ${findings.error.message}` } : {}),
  };
}

/** A duration the way the reference's reports print them (Go's notation): `850µs`, `1.204ms`, `2.5s`. */
export function goDuration(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 0.001) return `${Math.round(ms * 1e6)}ns`;
  if (ms < 1) return `${trim(ms * 1000)}µs`;
  if (ms < 1000) return `${trim(ms)}ms`;
  return `${trim(ms / 1000)}s`;
}

function trim(value: number): string {
  return String(Number(value.toFixed(3)));
}
