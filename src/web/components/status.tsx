// Status labels with a color and always a word, and times said the way people read them.

/** The tone of a status: its color, named by meaning. */
export type Tone = 'good' | 'busy' | 'idle' | 'bad' | 'warn';

const BUILD_TONES: Readonly<Record<string, Tone>> = {
  running: 'good',
  succeeded: 'good',
  connected: 'good',
  ready: 'good',
  healthy: 'good',
  active: 'good',
  ok: 'good',
  pending: 'busy',
  starting: 'busy',
  stopping: 'busy',
  deleting: 'busy',
  canceling: 'busy',
  connecting: 'busy',
  created: 'busy',
  start_timeout: 'warn',
  initializing: 'busy',
  stopped: 'idle',
  deleted: 'idle',
  canceled: 'idle',
  off: 'idle',
  disabled: 'idle',
  shutdown: 'idle',
  dormant: 'warn',
  warning: 'warn',
  timeout: 'warn',
  failed: 'bad',
  error: 'bad',
  start_error: 'bad',
  shutdown_error: 'bad',
  disconnected: 'bad',
  unhealthy: 'bad',
  suspended: 'bad',
};

/** A colored badge that says its status in words. */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  const tone = BUILD_TONES[status] ?? 'idle';
  return (
    <span className={`badge badge-${tone}`} data-status={status}>
      <span className="badge-dot" aria-hidden="true" />
      {label ?? status.replaceAll('_', ' ')}
    </span>
  );
}

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "3 minutes ago", "in 2 hours". */
export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const delta = new Date(iso).getTime() - now;
  for (const [unit, size] of units) {
    if (Math.abs(delta) >= size || unit === 'second') return relative.format(Math.round(delta / size), unit);
  }
  return '';
}

/** A time with its full date as the tooltip. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span>never</span>;
  return (
    <time dateTime={iso} title={new Date(iso).toLocaleString()}>
      {relativeTime(iso)}
    </time>
  );
}

/** A duration in milliseconds as "1h 5m", "42s", "850ms". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms == null) return '—';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  const hours = Math.floor(minutes / 60);
  return `${hours}h ${minutes % 60}m`;
}

/** An icon the template or resource names (a path on the server or a URL), or nothing. */
export function Icon({ src, size = 20 }: { src: string | undefined; size?: number }) {
  if (!src) return null;
  return <img className="icon" src={src} alt="" width={size} height={size} loading="lazy" />;
}
