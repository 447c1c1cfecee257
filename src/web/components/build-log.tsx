// A provisioner job's log, grouped by stage, followed live while the job runs.
import { useEffect, useRef, useState } from 'react';
import type { ProvisionerJob, ProvisionerJobLog } from '../../sdk/wire/index.js';
import { followJobLogs } from '../api.js';
import { formatDuration, StatusBadge } from './status.js';

interface Stage {
  readonly name: string;
  readonly logs: ProvisionerJobLog[];
}

function stagesOf(logs: readonly ProvisionerJobLog[]): Stage[] {
  const stages: Stage[] = [];
  for (const log of logs) {
    const last = stages.at(-1);
    if (last && last.name === log.stage) last.logs.push(log);
    else stages.push({ name: log.stage, logs: [log] });
  }
  return stages;
}

/**
 * The log of the job at `path` (`/workspacebuilds/{id}/logs` or `/templateversions/{id}/logs`).
 * `job` is the job as last seen, for its status; the stream itself ends when the job does.
 */
export function BuildLog({ path, job, title = 'Build log' }: { path: string; job: ProvisionerJob | undefined; title?: string }) {
  const [logs, setLogs] = useState<ProvisionerJobLog[]>([]);
  const [streamError, setStreamError] = useState<string>();
  const [following, setFollowing] = useState(true);
  const end = useRef<HTMLDivElement>(null);

  useEffect(() => {
    setLogs([]);
    setStreamError(undefined);
    setFollowing(true);
    const seen = new Set<number>();
    return followJobLogs(
      path,
      (log) => {
        if (seen.has(log.id)) return;
        seen.add(log.id);
        setLogs((current) => [...current, log]);
      },
      (error) => {
        setFollowing(false);
        if (error) setStreamError(error);
      },
    );
  }, [path]);

  useEffect(() => {
    const box = end.current?.parentElement;
    if (box) box.scrollTop = box.scrollHeight;
  }, [logs.length]);

  const stages = stagesOf(logs);
  return (
    <section className="build-log" aria-label={title}>
      <header className="build-log-header">
        <h2>{title}</h2>
        {job && <StatusBadge status={job.status} />}
        {following && job && !['succeeded', 'failed', 'canceled'].includes(job.status) && (
          <span className="muted live" role="status">
            <span className="live-dot" aria-hidden="true" /> live
          </span>
        )}
      </header>
      <div className="build-log-body" tabIndex={0} aria-live="polite">
        {stages.length === 0 && (
          <p className="muted build-log-empty">{job?.status === 'pending' ? 'Waiting for a provisioner…' : 'No log lines yet.'}</p>
        )}
        {stages.map((stage, index) => {
          const first = stage.logs[0]!;
          const next = stages[index + 1]?.logs[0];
          const endedAt =
            next?.created_at ?? (job?.completed_at && index === stages.length - 1 ? job.completed_at : stage.logs.at(-1)!.created_at);
          return (
            <details key={`${index}-${stage.name}`} className="stage" open>
              <summary>
                <span className="stage-name">{stage.name || 'Output'}</span>
                <span className="muted">{formatDuration(new Date(endedAt).getTime() - new Date(first.created_at).getTime())}</span>
              </summary>
              <pre>
                {stage.logs.map((log) => (
                  <span key={log.id} className={`log-line log-${log.log_level}`}>
                    {log.output}
                    {'\n'}
                  </span>
                ))}
              </pre>
            </details>
          );
        })}
        {job?.error && (
          <p className="log-error" role="alert">
            {job.error}
          </p>
        )}
        {streamError && <p className="muted">{streamError}</p>}
        <div ref={end} />
      </div>
    </section>
  );
}
