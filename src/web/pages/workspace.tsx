// One workspace: its state and actions, the latest build's progress, timings and log, resources and
// agents with their apps and startup logs, ports, schedule and build history, all following the
// workspace's watch stream.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Workspace, WorkspaceAgent, WorkspaceApp, WorkspaceBuild } from '../../sdk/wire/index.js';
import { api, watchWorkspace } from '../api.js';
import { AgentLogs } from '../components/agent-logs.js';
import { AgentPorts } from '../components/agent-ports.js';
import { WorkspaceStatusBadge } from '../components/agent-status.js';
import { BuildActions } from '../components/build-actions.js';
import { BuildLog } from '../components/build-log.js';
import { BuildEstimate } from '../components/build-timings-estimate.js';
import { BuildTimings } from '../components/build-timings.js';
import { ExtendBanner } from '../components/extend-banner.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { ShareButton } from '../components/share-dialog.js';
import { WorkspaceActionButtons } from '../components/workspace-action-buttons.js';
import { formatDuration, Icon, StatusBadge, Time } from '../components/status.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';
import { isTransitioning, runWorkspaceAction, type WorkspaceAction } from '../workspace-actions.js';

export function WorkspacePage({ owner, name }: { owner: string; name: string }) {
  const initial = useLoad(
    () => api<Workspace>('GET', `/users/${encodeURIComponent(owner)}/workspace/${encodeURIComponent(name)}`),
    [owner, name],
  );
  const [workspace, setWorkspace] = useState<Workspace>();
  const id = initial.data?.id;
  useEffect(() => {
    if (initial.data) setWorkspace(initial.data);
  }, [initial.data]);
  useEffect(() => (id ? watchWorkspace(id, setWorkspace) : undefined), [id]);
  const { data: appsHost } = useLoad(() => api<{ host: string }>('GET', '/applications/host').then((answer) => answer.host), []);

  if (!workspace) return <Loading error={initial.error} />;
  return (
    <section className="page">
      <WorkspaceHeader workspace={workspace} />
      <ExtendBanner workspace={workspace} />
      <div className="workspace-grid">
        <div className="workspace-column">
          <Resources workspace={workspace} appsHost={appsHost ?? ''} />
          <BuildTimings buildId={workspace.latest_build.id} revision={timingsRevision(workspace)} />
          <BuildLog
            key={workspace.latest_build.id}
            path={`/workspacebuilds/${workspace.latest_build.id}/logs`}
            job={workspace.latest_build.job}
            title={`Build #${workspace.latest_build.build_number}: ${workspace.latest_build.transition}`}
          />
        </div>
        <aside className="workspace-column workspace-side">
          <Schedule workspace={workspace} />
          <AgentPorts workspace={workspace} appsHost={appsHost ?? ''} />
          <BuildHistory workspace={workspace} />
        </aside>
      </div>
    </section>
  );
}

/** What changes a build's timings: its status, then its agents connecting and running their scripts. */
function timingsRevision(workspace: Workspace): string {
  const agents = workspace.latest_build.resources.flatMap((resource) => resource.agents);
  return [workspace.latest_build.status, ...agents.map((agent) => `${agent.status}/${agent.lifecycle_state}`)].join(' ');
}

function WorkspaceHeader({ workspace }: { workspace: Workspace }) {
  // The build that was the latest when the action began: its message ("Stopping.") speaks of the
  // builds it started, and clears once the workspace has moved past it and settled.
  const actedOn = useRef<string | undefined>(undefined);
  const [action, run, reset] = useAction(async (name: WorkspaceAction) => {
    actedOn.current = workspace.latest_build.id;
    const done = await runWorkspaceAction(workspace, name);
    if (name === 'delete') navigate('/workspaces');
    return done;
  });
  const build = workspace.latest_build;
  const settled = action.state === 'done' && build.id !== actedOn.current && !isTransitioning(workspace);
  useEffect(() => {
    if (settled) reset();
  }, [settled, reset]);
  const busy = action.state === 'pending' || isTransitioning(workspace);
  return (
    <div className="page-header workspace-header">
      <div>
        <p className="breadcrumb">
          <Link href="/workspaces">Workspaces</Link> / {workspace.owner_name}
        </p>
        <h1>
          {workspace.name} <WorkspaceStatusBadge workspace={workspace} />
        </h1>
        <p className="muted">
          <Icon src={workspace.template_icon} size={16} /> {workspace.template_display_name || workspace.template_name} ·{' '}
          {build.template_version_name}
          {workspace.outdated && (
            <>
              {' '}
              <span className="badge badge-warn">outdated</span>
            </>
          )}{' '}
          · last used <Time iso={workspace.last_used_at} />
        </p>
        {build.job.status === 'pending' && build.job.queue_size > 0 && (
          <p className="muted" role="status">
            Queued: position {build.job.queue_position} of {build.job.queue_size}.
          </p>
        )}
        {build.status === 'failed' && build.job.error && (
          <p className="log-error" role="alert">
            {build.job.error}
          </p>
        )}
        <BuildEstimate build={build} templateId={workspace.template_id} />
        <BuildActions workspace={workspace} build={build} />
      </div>
      <div className="header-actions">
        <WorkspaceActionButtons workspace={workspace} busy={busy} run={run} startClass="button button-primary" />
        <ShareButton workspace={workspace} />
        <Link className="button" href={`/@${encodeURIComponent(workspace.owner_name)}/${encodeURIComponent(workspace.name)}/settings`}>
          Settings
        </Link>
        <ActionStatus state={action} />
      </div>
    </div>
  );
}

/**
 * Where an app opens: its own URL (external), its subdomain under the app host, or a path on the
 * deployment. With an app host, every proxied app opens on its subdomain: a path app shares the
 * dashboard's origin, where its pages could act with the visitor's session, and opens only for its
 * workspace's owner.
 */
function appHref(workspace: Workspace, agent: WorkspaceAgent, app: WorkspaceApp, appsHost: string): string | undefined {
  if (app.external) return app.url;
  const label = app.subdomain_name || subdomainLabel(app.slug, agent.name, workspace.name, workspace.owner_name);
  if (appsHost && label) return `${location.protocol}//${appsHost.replace('*', label)}/`;
  if (app.subdomain) return undefined;
  return `/@${workspace.owner_name}/${workspace.name}.${agent.name}/apps/${encodeURIComponent(app.slug)}/`;
}

/** The label of an app's subdomain, when every name fits one (the proxy splits it on `--`; DNS stops at 63). */
function subdomainLabel(slug: string, agent: string, workspace: string, owner: string): string | undefined {
  const parts = [slug, agent, workspace, owner];
  const label = parts.join('--');
  return parts.every((part) => /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/.test(part)) && label.length <= 63 ? label : undefined;
}

/** Why others cannot open some of these apps by path, when there is no app host to send them to. */
function PathAppNote({ apps, mine, appsHost }: { apps: readonly WorkspaceApp[]; mine: boolean; appsHost: string }) {
  if (appsHost) return null;
  const byPath = apps.filter((app) => !app.external && !app.subdomain);
  if (byPath.length === 0) return null;
  if (!mine) {
    return (
      <p className="muted app-note" data-note="path-apps">
        These apps open only for the workspace&rsquo;s owner: on this deployment they are served by path, on the dashboard&rsquo;s own
        address. An operator can serve apps on subdomains with <code>--wildcard-access-url</code>.
      </p>
    );
  }
  if (!byPath.some((app) => app.sharing_level !== 'owner')) return null;
  return (
    <p className="muted app-note" data-note="path-apps">
      Shared apps open only for you here: others cannot open path apps, which run on the dashboard&rsquo;s own address. An operator can
      serve apps on subdomains, where sharing works, with <code>--wildcard-access-url</code>.
    </p>
  );
}

function latencyOf(agent: WorkspaceAgent): string | undefined {
  const values = Object.values(agent.latency ?? {}).map((entry) => entry.latency_ms);
  return values.length > 0 ? `${Math.round(Math.min(...values))} ms` : undefined;
}

function Resources({ workspace, appsHost }: { workspace: Workspace; appsHost: string }) {
  const resources = workspace.latest_build.resources.filter((resource) => !resource.hide);
  const running = workspace.latest_build.status === 'running';
  const mine = useSession().user.id === workspace.owner_id;
  return (
    <section className="card" aria-labelledby="resources-title">
      <h2 id="resources-title">Resources</h2>
      {resources.length === 0 && <p className="muted">No resources in this build.</p>}
      <ul className="resource-list">
        {resources.map((resource) => (
          <li key={resource.id} className="resource">
            <div className="resource-head">
              <Icon src={resource.icon} />
              <strong>{resource.name}</strong>
              <span className="muted">{resource.type}</span>
            </div>
            {resource.metadata && resource.metadata.length > 0 && (
              <dl className="metadata">
                {resource.metadata.map((item) => (
                  <div key={item.key}>
                    <dt>{item.key}</dt>
                    <dd>{item.sensitive ? '••••••' : item.value}</dd>
                  </div>
                ))}
              </dl>
            )}
            {resource.agents.map((agent) => (
              <div key={agent.id} className="agent" data-agent={agent.name}>
                <div className="agent-head">
                  <span className="agent-name">{agent.name}</span>
                  <StatusBadge status={agent.status} />
                  <StatusBadge status={agent.lifecycle_state} />
                  <span className="muted agent-facts">
                    {[
                      agent.operating_system && `${agent.operating_system}/${agent.architecture}`,
                      agent.version && `v${agent.version}`,
                      latencyOf(agent),
                    ]
                      .filter(Boolean)
                      .join(' · ')}
                  </span>
                </div>
                {!agent.health.healthy && agent.health.reason && <p className="muted">{agent.health.reason}</p>}
                <AgentLogs agent={agent} />
                {running && (
                  <ul className="app-list">
                    {agent.display_apps.includes('web_terminal') && (
                      <li>
                        <Link className="app-link" href={`/@${workspace.owner_name}/${workspace.name}.${agent.name}/terminal`}>
                          <span className="app-icon app-icon-terminal" aria-hidden="true" />
                          Terminal
                        </Link>
                      </li>
                    )}
                    {agent.apps
                      .filter((app) => !app.hidden)
                      .map((app) => {
                        const href = appHref(workspace, agent, app, appsHost);
                        return (
                          <li key={app.id}>
                            {href ? (
                              <a className="app-link" href={href} target="_blank" rel="noreferrer" data-app={app.slug}>
                                <Icon src={app.icon} size={16} />
                                {app.display_name || app.slug}
                                {app.health !== 'disabled' && <StatusBadge status={app.health} />}
                              </a>
                            ) : (
                              <span className="app-link app-link-off" title="Subdomain apps need a wildcard access URL.">
                                {app.display_name || app.slug} (unavailable)
                              </span>
                            )}
                          </li>
                        );
                      })}
                  </ul>
                )}
                {running && <PathAppNote apps={agent.apps.filter((app) => !app.hidden)} mine={mine} appsHost={appsHost} />}
              </div>
            ))}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Schedule({ workspace }: { workspace: Workspace }) {
  const deadline = workspace.latest_build.deadline;
  const [extend, startExtend] = useAction(async (hours: number) => {
    const from = deadline ? new Date(deadline).getTime() : Date.now();
    await api('PUT', `/workspaces/${workspace.id}/extend`, { body: { deadline: new Date(from + hours * 3_600_000).toISOString() } });
    return `Extended by ${hours} hour${hours === 1 ? '' : 's'}.`;
  });
  const settings = `/@${encodeURIComponent(workspace.owner_name)}/${encodeURIComponent(workspace.name)}/settings/schedule`;
  return (
    <section className="card" aria-labelledby="schedule-title">
      <h2 id="schedule-title">Schedule</h2>
      {workspace.latest_build.status === 'running' && (
        <div className="deadline">
          <p>
            {deadline ? (
              <>
                Stops <Time iso={deadline} />
              </>
            ) : (
              'Runs until stopped.'
            )}
          </p>
          {deadline && (
            <div className="inline-actions">
              <button type="button" className="button" onClick={() => void startExtend(1)} disabled={extend.state === 'pending'}>
                +1 hour
              </button>
              <button type="button" className="button" onClick={() => void startExtend(4)} disabled={extend.state === 'pending'}>
                +4 hours
              </button>
              <ActionStatus state={extend} />
            </div>
          )}
        </div>
      )}
      <dl className="metadata" data-summary="schedule">
        <div>
          <dt>Autostart</dt>
          <dd>
            {workspace.autostart_schedule ? (
              <>
                {workspace.next_start_at ? (
                  <>
                    next <Time iso={workspace.next_start_at} />
                  </>
                ) : (
                  'on'
                )}{' '}
                <code className="muted">{workspace.autostart_schedule}</code>
              </>
            ) : (
              'off'
            )}
          </dd>
        </div>
        <div>
          <dt>Autostop</dt>
          <dd>{workspace.ttl_ms ? `${formatDuration(workspace.ttl_ms)} after last use` : 'off'}</dd>
        </div>
      </dl>
      <p>
        <Link href={settings}>Change the schedule</Link>
      </p>
    </section>
  );
}

function BuildHistory({ workspace }: { workspace: Workspace }) {
  const load = useCallback(
    () => api<WorkspaceBuild[]>('GET', `/workspaces/${workspace.id}/builds`, { query: { limit: 10 } }),
    [workspace.id],
  );
  // Read again whenever the latest build changes state, which the watch stream reports.
  const { data, error } = useLoad(load, [load, workspace.latest_build.id, workspace.latest_build.status]);
  return (
    <section className="card" aria-labelledby="history-title">
      <h2 id="history-title">Build history</h2>
      {!data ? (
        <Loading error={error} />
      ) : (
        <ol className="history">
          {data.map((build) => (
            <li key={build.id}>
              <Link className="history-number" href={`/@${workspace.owner_name}/${workspace.name}/builds/${build.build_number}`}>
                #{build.build_number}
              </Link>
              <span className="history-transition">{build.transition}</span>
              {/* The latest build says what the header says; an earlier one, how its job ended (a start
                  superseded by a stop is no longer "running"). */}
              {build.id === workspace.latest_build.id ? (
                <WorkspaceStatusBadge workspace={workspace} />
              ) : (
                <StatusBadge status={build.job.status} />
              )}
              <span className="muted">
                {build.initiator_name} · <Time iso={build.created_at} />
                {build.job.started_at && build.job.completed_at && (
                  <> · {formatDuration(new Date(build.job.completed_at).getTime() - new Date(build.job.started_at).getTime())}</>
                )}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
