// One build of a workspace, by its number: its status, where its time went, the parameters it ran
// with and its whole log; a build in progress can be canceled, a failed one retried.
import { useEffect, useState, type ReactNode } from 'react';
import type { Workspace, WorkspaceBuild } from '../../sdk/wire/index.js';
import { api, watchWorkspace } from '../api.js';
import { BuildActions } from '../components/build-actions.js';
import { BuildLog } from '../components/build-log.js';
import { BuildEstimate } from '../components/build-timings-estimate.js';
import { BuildTimings } from '../components/build-timings.js';
import { Loading, useLoad } from '../components/feedback.js';
import { formatDuration, StatusBadge, Time } from '../components/status.js';
import { Link, navigate } from '../router.js';

export function WorkspaceBuildPage({ owner, name, buildNumber }: { owner: string; name: string; buildNumber: string }) {
  const base = `/users/${encodeURIComponent(owner)}/workspace/${encodeURIComponent(name)}`;
  const initial = useLoad(() => api<Workspace>('GET', base), [base]);
  const [workspace, setWorkspace] = useState<Workspace>();
  useEffect(() => {
    if (initial.data) setWorkspace(initial.data);
  }, [initial.data]);
  const id = initial.data?.id;
  useEffect(() => (id ? watchWorkspace(id, setWorkspace) : undefined), [id]);
  // Read again as the workspace's latest build moves, which covers this build while it is the latest.
  const latest = workspace?.latest_build;
  const build = useLoad(
    () => api<WorkspaceBuild>('GET', `${base}/builds/${encodeURIComponent(buildNumber)}`),
    [base, buildNumber, latest?.id, latest?.status, latest?.job.status],
  );
  if (!workspace || !build.data) return <Loading error={initial.error ?? build.error} />;
  return <BuildDetails workspace={workspace} build={build.data} />;
}

function BuildDetails({ workspace, build }: { workspace: Workspace; build: WorkspaceBuild }) {
  const home = `/@${workspace.owner_name}/${workspace.name}`;
  const { job } = build;
  const duration =
    job.started_at && job.completed_at ? new Date(job.completed_at).getTime() - new Date(job.started_at).getTime() : undefined;
  return (
    <section className="page workspace-build-page">
      <div className="page-header">
        <div>
          <p className="breadcrumb">
            <Link href="/workspaces">Workspaces</Link> / <Link href={home}>{workspace.name}</Link> / builds
          </p>
          <h1>
            Build #{build.build_number}: {build.transition} <StatusBadge status={build.status} />
          </h1>
          <p className="muted">
            {build.template_version_name} · by {build.initiator_name} ({build.reason}) · <Time iso={build.created_at} />
            {duration !== undefined && <> · took {formatDuration(duration)}</>}
          </p>
          {job.error && (
            <p className="log-error" role="alert">
              {job.error}
            </p>
          )}
        </div>
        <div className="header-actions">
          <BuildActions workspace={workspace} build={build} onRetried={(next) => navigate(`${home}/builds/${next.build_number}`)} />
        </div>
      </div>
      <BuildEstimate build={build} templateId={workspace.template_id} />
      <div className="workspace-grid">
        <div className="workspace-column">
          <BuildTimings buildId={build.id} revision={build.status} />
          <BuildLog key={build.id} path={`/workspacebuilds/${build.id}/logs`} job={job} title={`Log of build #${build.build_number}`} />
        </div>
        <aside className="workspace-column workspace-side">
          <BuildFacts build={build} />
          <BuildParameters buildId={build.id} />
        </aside>
      </div>
    </section>
  );
}

function BuildFacts({ build }: { build: WorkspaceBuild }) {
  const { job } = build;
  const facts: [string, ReactNode][] = [
    ['Status', <StatusBadge key="status" status={build.status} />],
    ['Job', <StatusBadge key="job" status={job.status} />],
    ['Transition', build.transition],
    ['Version', build.template_version_name],
    ['Started by', build.initiator_name],
    ['Queued', <Time key="queued" iso={job.created_at} />],
    ['Started', <Time key="started" iso={job.started_at} />],
    ['Finished', <Time key="finished" iso={job.completed_at} />],
    ['Provisioner', job.worker_name || '—'],
  ];
  return (
    <section className="card" aria-labelledby="build-facts-title">
      <h2 id="build-facts-title">Details</h2>
      <dl className="metadata build-facts">
        {facts.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function BuildParameters({ buildId }: { buildId: string }) {
  const { data, error } = useLoad(() => api<{ name: string; value: string }[]>('GET', `/workspacebuilds/${buildId}/parameters`), [buildId]);
  return (
    <section className="card" aria-labelledby="build-parameters-title">
      <h2 id="build-parameters-title">Parameters</h2>
      {!data ? (
        <Loading error={error} />
      ) : data.length === 0 ? (
        <p className="muted">This build used no parameters.</p>
      ) : (
        <dl className="metadata" aria-label="Parameters of this build">
          {data.map((parameter) => (
            <div key={parameter.name} data-parameter={parameter.name}>
              <dt>{parameter.name}</dt>
              <dd>{parameter.value}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
