// What can be done about one build: cancel it while its job is queued or running, and when it
// failed, run its transition again, with the provisioner's debug lines in its log if wanted.
import { useEffect } from 'react';
import type { Workspace, WorkspaceBuild } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { useSession } from '../session.js';
import { ActionStatus, useAction, useLoad } from './feedback.js';

/** Whether the signed-in user may ask for debug logs: the server allows it to those who may read the deployment's configuration. */
function useMayDebug(): boolean {
  const { data } = useLoad(async () => {
    const checks = { debug: { action: 'read', object: { resource_type: 'deployment_config' } } };
    return (await api<Record<string, boolean>>('POST', '/authcheck', { body: { checks } }))['debug'] === true;
  }, []);
  return data === true;
}

/** The build the retry makes: the same transition on the same version, with `debug` the provisioner's debug lines. */
function retry(build: WorkspaceBuild, debug: boolean): Promise<WorkspaceBuild> {
  return api<WorkspaceBuild>('POST', `/workspaces/${build.workspace_id}/builds`, {
    body: { transition: build.transition, template_version_id: build.template_version_id, ...(debug ? { log_level: 'debug' } : {}) },
  });
}

/**
 * Cancel for a build still in progress; Retry (and Retry with debug logs, for those allowed) for
 * the workspace's latest build when it failed. `onRetried` gets the new build.
 */
export function BuildActions({
  workspace,
  build,
  onRetried,
}: {
  workspace: Workspace;
  build: WorkspaceBuild;
  onRetried?: (build: WorkspaceBuild) => void;
}) {
  const mayDebug = useMayDebug();
  const [action, run, reset] = useAction(async (what: 'cancel' | 'retry' | 'debug') => {
    if (what === 'cancel') {
      await api('PATCH', `/workspacebuilds/${build.id}/cancel`);
      return 'Canceling.';
    }
    const next = await retry(build, what === 'debug');
    onRetried?.(next);
    return what === 'debug' ? `Retrying with debug logs (build #${next.build_number}).` : `Retrying (build #${next.build_number}).`;
  });
  // What the action said ("Canceling.") is over once the build moves on: it clears rather than stays.
  const settled = action.state === 'done';
  useEffect(() => {
    if (settled) reset();
  }, [build.id, build.status]);
  // The server lets a build be canceled when its template allows it, or by a site owner.
  const siteOwner = useSession().user.roles.some((role) => role.name === 'owner');
  const mayCancel = workspace.template_allow_user_cancel_workspace_jobs || siteOwner;
  const active = (build.job.status === 'pending' || build.job.status === 'running') && mayCancel;
  const latest = workspace.latest_build.id === build.id;
  const failed = build.status === 'failed';
  if (!active && !(latest && failed) && action.state === 'idle') return null;
  const busy = action.state === 'pending';
  return (
    <div className="inline-actions build-actions">
      {active && (
        <button type="button" className="button" disabled={busy} onClick={() => void run('cancel')}>
          Cancel build
        </button>
      )}
      {latest && failed && (
        <>
          <button type="button" className="button button-primary" disabled={busy} onClick={() => void run('retry')}>
            Retry
          </button>
          {mayDebug && (
            <button type="button" className="button" disabled={busy} onClick={() => void run('debug')}>
              Retry with debug logs
            </button>
          )}
        </>
      )}
      <ActionStatus state={action} />
    </div>
  );
}
