// How far a running build probably is, from how long the template's past builds of the same
// transition took (its build_time_stats: the median and the 95th percentile, in milliseconds).
import { useEffect, useState } from 'react';
import type { Template, WorkspaceBuild } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { useLoad } from './feedback.js';
import { formatDuration } from './status.js';

type TransitionStats = Template['build_time_stats'][string];

/** Every second while mounted: the clock the estimate counts against. */
function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** A progress bar for a build whose job is pending or running; nothing once it is over. */
export function BuildEstimate({ build, templateId }: { build: WorkspaceBuild; templateId: string }) {
  const active = build.job.status === 'pending' || build.job.status === 'running';
  const template = useLoad(() => api<Template>('GET', `/templates/${templateId}`), [templateId]);
  if (!active) return null;
  const stats = template.data?.build_time_stats[build.transition];
  return <Estimate build={build} stats={stats} />;
}

function Estimate({ build, stats }: { build: WorkspaceBuild; stats: TransitionStats | undefined }) {
  const now = useNow();
  const since = new Date(build.job.started_at ?? build.created_at).getTime();
  const elapsed = Math.max(0, now - since);
  const p50 = stats?.P50 ?? undefined;
  const p95 = stats?.P95 ?? undefined;
  if (p50 === undefined) {
    return (
      <div className="build-estimate" data-estimate="none" role="status">
        <span className="muted">
          {build.job.started_at ? `Running for ${formatDuration(elapsed)}.` : 'Waiting for a provisioner.'} No estimate yet: this template
          has no finished {build.transition} builds.
        </span>
      </div>
    );
  }
  const usually = `${build.transition} builds of this template usually take ${formatDuration(p50)}${p95 ? ` (up to ${formatDuration(p95)})` : ''}`;
  // Queued time is not build time (the stats count from a job's start): a queued build has no progress yet.
  if (!build.job.started_at) {
    return (
      <div className="build-estimate" data-estimate="stats">
        <progress aria-label="Build progress, waiting for a provisioner" />
        <p className="muted" role="status">
          Waiting for a provisioner; once one takes it, {usually}.
        </p>
      </div>
    );
  }
  const fraction = p50 > 0 ? Math.min(elapsed / p50, 0.99) : 0.99;
  const over = elapsed > (p95 ?? p50 * 2);
  const text = over
    ? `Taking longer than usual: ${formatDuration(elapsed)} so far, where ${build.transition} builds of this template usually take ${formatDuration(p50)}.`
    : elapsed >= p50
      ? `Almost done: ${formatDuration(elapsed)} so far; usually ${formatDuration(p50)}${p95 ? `, up to ${formatDuration(p95)}` : ''}.`
      : `About ${formatDuration(p50 - elapsed)} left; ${usually}.`;
  return (
    <div className={`build-estimate${over ? ' build-estimate-over' : ''}`} data-estimate="stats">
      <progress max={100} value={Math.round(fraction * 100)} aria-label="Build progress, estimated" />
      <p className="muted" role="status">
        {text}
      </p>
    </div>
  );
}
