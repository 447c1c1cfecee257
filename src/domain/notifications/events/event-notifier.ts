import type { AuthorizedStore } from '../../../store/authorized-store.js';
import type { WorkspaceRow } from '../../../store/rows.js';
import type { NotificationEnqueuer, NotificationRequest } from '../notification-request.js';

/**
 * What an event needs to tell people about itself: the store as the notification events system
 * subject (recipients are rarely rows the user who caused the event may read, and timers cause
 * the rest), the queue, and where to report a notification that could not be queued.
 */
export interface EventNotifier {
  readonly store: AuthorizedStore;
  readonly enqueuer: NotificationEnqueuer;
  /** Told of a failure to find recipients or queue a message; the event itself has happened all the same. */
  readonly warn: (error: unknown, event: string) => void;
}

/**
 * Runs `collect` and queues the notifications it makes, one by one. Never throws: whatever
 * caused the event (a request, a job's end, a timer) succeeded already, and a notification that
 * could not be queued must not undo or fail it. Returns how many were queued.
 */
export async function tell(
  notifier: EventNotifier,
  event: string,
  collect: () => Promise<readonly NotificationRequest[]>,
): Promise<number> {
  let requests: readonly NotificationRequest[];
  try {
    requests = await collect();
  } catch (error) {
    notifier.warn(error, event);
    return 0;
  }
  let queued = 0;
  for (const request of requests) {
    try {
      await notifier.enqueuer.enqueue(request);
      queued++;
    } catch (error) {
      notifier.warn(error, event);
    }
  }
  return queued;
}

/** The ids a message about a workspace is filed under in the inbox. */
export function workspaceTargets(workspace: Pick<WorkspaceRow, 'id' | 'owner_id' | 'template_id' | 'organization_id'>): string[] {
  return [workspace.id, workspace.owner_id, workspace.template_id, workspace.organization_id];
}

/** A template's name as people read it: its display name when it has one. */
export function templateLabel(template: { readonly name: string; readonly display_name: string }): string {
  return template.display_name || template.name;
}

/** A time as messages show it: `2026-01-05 11:00 UTC`. */
export function timeLabel(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A span of time as messages show it, to the minute: `1 hour 5 minutes`, `45 minutes`, `less than a minute`. */
export function spanLabel(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'less than a minute';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  const part = (n: number, unit: string) => (n === 0 ? [] : [`${n} ${unit}${n === 1 ? '' : 's'}`]);
  return [...part(days, 'day'), ...part(hours, 'hour'), ...part(rest, 'minute')].join(' ');
}
