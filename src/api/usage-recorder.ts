import type { FastifyBaseLogger } from 'fastify';
import { epochMinute, recordUsageMinute, type UsageKind } from '../domain/usage-minutes.js';
import { recordWorkspaceUsage } from '../domain/workspace-usage.js';
import { SYSTEM_SUBJECTS } from '../rbac/system-subjects.js';
import type { WorkspaceRow } from '../store/rows.js';
import type { StoreHandle } from '../store/store.js';

/** Use of a workspace through its apps and streams is recorded at most this often, per workspace. */
const USAGE_INTERVAL_MS = 60_000;
/** Past this many workspaces the memory of recent records starts afresh. */
const MAX_REMEMBERED = 10_000;

/**
 * Records that workspaces are used through apps and relay streams, at most once a minute each:
 * a page load opens many connections, and each record is a write, a deadline check and an event.
 */
export class UsageRecorder {
  readonly #last = new Map<string, number>();
  /** Per workspace and way of use, the last minute recorded for insights. */
  readonly #lastMinute = new Map<string, number>();

  constructor(private readonly store: StoreHandle) {}

  /** Records the use in the background; a failure is logged, never thrown. */
  record(workspace: WorkspaceRow, log: FastifyBaseLogger): void {
    const now = this.store.clock.now();
    const last = this.#last.get(workspace.id);
    if (last !== undefined && now.getTime() >= last && now.getTime() - last < USAGE_INTERVAL_MS) return;
    if (this.#last.size > MAX_REMEMBERED) this.#last.clear();
    this.#last.set(workspace.id, now.getTime());
    // The user reaching an app or a port may be allowed to connect without being allowed to change
    // the workspace, yet their use must still count: recording it is the deployment's own work.
    const recorder = this.store.as(SYSTEM_SUBJECTS.workspaceUsage);
    recordWorkspaceUsage(recorder, this.store.pubsub, workspace, now, this.store.features).catch((error: unknown) =>
      log.warn({ err: error, workspace: workspace.id }, 'could not record workspace usage'),
    );
  }

  /**
   * Records the use for insights too, as the minute in which the workspace was used this way
   * (once a minute per way, since a minute counts once), and then as `record` does.
   */
  recordUse(workspace: WorkspaceRow, use: UsageKind, log: FastifyBaseLogger): void {
    this.record(workspace, log);
    const now = this.store.clock.now();
    const minute = epochMinute(now);
    const key = `${workspace.id} ${use.kind} ${use.kind === 'app' ? use.slug : ''}`;
    if (this.#lastMinute.get(key) === minute) return;
    if (this.#lastMinute.size > MAX_REMEMBERED) this.#lastMinute.clear();
    this.#lastMinute.set(key, minute);
    // As for `record`: the user need not be allowed to change the workspace for their use to count.
    recordUsageMinute(this.store.as(SYSTEM_SUBJECTS.workspaceUsage), workspace, [use], now).catch((error: unknown) =>
      log.warn({ err: error, workspace: workspace.id }, 'could not record workspace usage for insights'),
    );
  }
}
