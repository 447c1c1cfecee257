import type { AgentMessage, ManifestApp } from '../sdk/wire/agent-protocol.js';

/** The health of one app, as `app_health` reports it. */
export type AppHealth = 'initializing' | 'healthy' | 'unhealthy';

/**
 * Polls the health check URL of each app that has one. An app starts `initializing`; an answer
 * below 500 makes it `healthy`; `threshold` failures in a row (an error, a timeout or a 5xx) make
 * it `unhealthy`. Every change is reported with all apps' healths. Returns a function that stops.
 */
export function watchAppHealth(apps: readonly ManifestApp[], send: (message: AgentMessage) => void): () => void {
  const checked = apps.filter(
    (app) => app.healthcheck !== null && app.healthcheck.url !== '' && app.healthcheck.interval > 0 && app.healthcheck.threshold > 0,
  );
  if (checked.length === 0) return () => undefined;
  const healths: Record<string, AppHealth> = Object.fromEntries(checked.map((app) => [app.id, 'initializing' as const]));
  send({ type: 'app_health', apps: { ...healths } });
  const stops = checked.map((app) =>
    pollApp(app, (health) => {
      if (healths[app.id] === health) return;
      healths[app.id] = health;
      send({ type: 'app_health', apps: { ...healths } });
    }),
  );
  return () => stops.forEach((stop) => stop());
}

function pollApp(app: ManifestApp, onHealth: (health: AppHealth) => void): () => void {
  const check = app.healthcheck!;
  const intervalMs = check.interval * 1000;
  let failures = 0;
  let stopped = false;
  const probe = async (): Promise<void> => {
    // Slightly under the interval, so one slow answer cannot overlap the next probe.
    const ok = await probeOnce(check.url, Math.max(100, intervalMs - 100));
    if (stopped) return;
    if (ok) {
      failures = 0;
      onHealth('healthy');
    } else {
      failures += 1;
      if (failures >= check.threshold) onHealth('unhealthy');
    }
  };
  const timer = setInterval(() => void probe(), intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

async function probeOnce(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer().catch(() => undefined);
    return response.status < 500;
  } catch {
    return false;
  }
}
