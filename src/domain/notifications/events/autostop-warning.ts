import { spanLabel, tell, timeLabel, workspaceTargets, type EventNotifier } from './event-notifier.js';

/**
 * Warns the owner of each started workspace whose deadline falls within `windowMs` of `now` that
 * it will stop, with a link that extends it. Once per deadline: the queue keeps one message per
 * build and deadline, so a second run, a second replica or a retried tick adds nothing, while a
 * deadline moved later (the owner extended it) is warned of again when it comes near. Returns how
 * many warnings were queued (those already queued count again: the queue decides).
 */
export async function queueAutostopWarnings(notifier: EventNotifier, now: Date, windowMs: number): Promise<number> {
  if (windowMs <= 0) return 0;
  return tell(notifier, 'workspace autostop warning', async () => {
    const due = await notifier.store.notificationEvents.nearingDeadline(now, new Date(now.getTime() + windowMs));
    return due.flatMap(({ workspace, build, owner }) => {
      if (!build.deadline) return [];
      const deadline = new Date(build.deadline);
      return [
        {
          kind: 'workspaceAutostopWarning' as const,
          userId: owner.id,
          labels: {
            workspace: workspace.name,
            owner: owner.username,
            deadline: timeLabel(deadline),
            remaining: spanLabel(deadline.getTime() - now.getTime()),
          },
          targets: workspaceTargets(workspace),
          createdBy: 'autostop-warning',
          dedupeKey: `workspace-autostop-warning:${build.id}:${build.deadline}`,
        },
      ];
    });
  });
}
