// One section of the health report as a panel: its verdict, errors and warnings with their codes,
// every field the check reported behind a disclosure, and the switch that dismisses the section.
import type { HealthMessage, HealthReport, HealthSection } from '../../sdk/wire/index.js';
import { StatusBadge } from './status.js';

/** The report's sections: its key, the name settings dismiss it by, and what it is called here. */
export const HEALTH_PANELS: readonly { key: SectionKey; name: HealthSection; label: string }[] = [
  { key: 'access_url', name: 'AccessURL', label: 'Access URL' },
  { key: 'database', name: 'Database', label: 'Database' },
  { key: 'websocket', name: 'Websocket', label: 'WebSocket' },
  { key: 'derp', name: 'DERP', label: 'Relay' },
  { key: 'provisioner_daemons', name: 'ProvisionerDaemons', label: 'Provisioners' },
  { key: 'workspace_proxy', name: 'WorkspaceProxy', label: 'Workspace proxies' },
];

export type SectionKey = 'access_url' | 'database' | 'websocket' | 'derp' | 'provisioner_daemons' | 'workspace_proxy';

/** What every section has; the rest of its fields differ from check to check. */
export interface SectionFields {
  readonly healthy: boolean;
  readonly severity: string;
  readonly dismissed: boolean;
  readonly error?: string;
  readonly warnings: readonly HealthMessage[];
}

/** The common fields of a section of the report, and the others as the check sent them. */
export function sectionOf(report: HealthReport, key: SectionKey): SectionFields & Readonly<Record<string, unknown>> {
  return report[key] as unknown as SectionFields & Readonly<Record<string, unknown>>;
}

const COMMON = new Set(['healthy', 'severity', 'dismissed', 'error', 'warnings']);

export function HealthSectionPanel({
  label,
  section,
  dismissed,
  busy,
  onDismiss,
}: {
  label: string;
  section: SectionFields & Readonly<Record<string, unknown>>;
  dismissed: boolean;
  busy: boolean;
  onDismiss: (dismiss: boolean) => void;
}) {
  const fields = Object.entries(section).filter(([name]) => !COMMON.has(name));
  const plain = fields.filter(([, value]) => value === null || typeof value !== 'object');
  const nested = fields.filter(([, value]) => value !== null && typeof value === 'object');
  const headingId = `health-${label.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <section className={dismissed ? 'card health-panel health-dismissed' : 'card health-panel'} aria-labelledby={headingId}>
      <div className="card-header">
        <h2 id={headingId}>{label}</h2>
        <StatusBadge status={dismissed ? 'disabled' : section.severity} label={dismissed ? 'dismissed' : section.severity} />
        <button type="button" className="button button-quiet" disabled={busy} onClick={() => onDismiss(!dismissed)}>
          {dismissed ? 'Undismiss' : 'Dismiss'}
          <span className="visually-hidden"> {label}</span>
        </button>
      </div>
      {dismissed && <p className="muted">Dismissed: its findings do not count against the deployment’s health.</p>}
      {section.error && (
        <p className="notice notice-error health-error">
          <strong>Error</strong> {section.error}
        </p>
      )}
      {section.warnings.length > 0 && (
        <ul className="health-warnings" aria-label={`Warnings of ${label}`}>
          {section.warnings.map((warning, index) => (
            <li key={`${warning.code}-${index}`}>
              <code>{warning.code}</code> {warning.message}
            </li>
          ))}
        </ul>
      )}
      {!section.error && section.warnings.length === 0 && <p className="muted">No errors or warnings.</p>}
      <details className="health-details">
        <summary>
          Details<span className="visually-hidden"> of {label}</span>
        </summary>
        {plain.length > 0 && (
          <dl className="facts">
            {plain.map(([name, value]) => (
              <div key={name} className="health-fact">
                <dt>{name}</dt>
                <dd>
                  <code>{value === '' ? '""' : String(value)}</code>
                </dd>
              </div>
            ))}
          </dl>
        )}
        {nested.map(([name, value]) => (
          <div key={name} className="health-raw">
            <h3>{name}</h3>
            <pre tabIndex={0} aria-label={`${name} of ${label}`}>
              {JSON.stringify(value, null, 2)}
            </pre>
          </div>
        ))}
      </details>
    </section>
  );
}
