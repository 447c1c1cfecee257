import type { WorkspaceRow } from '../../../store/rows.js';
import type { NotificationRequest } from '../notification-request.js';
import { spanLabel, tell, timeLabel, workspaceTargets, type EventNotifier } from './event-notifier.js';

/** Why a workspace became dormant: unused for `idleMs` (the template's `time_til_dormant`), or marked so by someone. */
export type DormancyCause = { readonly idleMs: number } | { readonly markedBy: string };

/**
 * Tells a workspace's owner that it became dormant, and, when it has a `deleting_at`, when it will
 * be deleted. `workspace` is the row as it is once dormant. Once per dormancy: a workspace used
 * again and made dormant later is told again. Never throws.
 */
export async function notifyWorkspaceDormant(notifier: EventNotifier, workspace: WorkspaceRow, cause: DormancyCause): Promise<number> {
  const dormantAt = workspace.dormant_at;
  if (!dormantAt) return 0;
  return tell(notifier, 'workspace dormant', async () => {
    const owner = await notifier.store.users.get(workspace.owner_id);
    const automatic = 'idleMs' in cause;
    const base = { userId: owner.id, targets: workspaceTargets(workspace), createdBy: automatic ? 'autobuild' : 'api-workspace-dormant' };
    const reason = automatic ? `it was not used for ${spanLabel(cause.idleMs)}` : `${cause.markedBy} marked it dormant`;
    const labels = { workspace: workspace.name, owner: owner.username };
    const requests: NotificationRequest[] = [
      {
        ...base,
        kind: 'workspaceDormant',
        labels: { ...labels, reason },
        dedupeKey: `workspace-dormant:${workspace.id}:${dormantAt}`,
      },
    ];
    if (workspace.deleting_at) {
      requests.push({
        ...base,
        kind: 'workspaceMarkedForDeletion',
        labels: { ...labels, reason: 'it is dormant', deletingAt: timeLabel(new Date(workspace.deleting_at)) },
        dedupeKey: `workspace-marked-for-deletion:${workspace.id}:${workspace.deleting_at}`,
      });
    }
    return requests;
  });
}
