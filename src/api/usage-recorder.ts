import type { FastifyBaseLogger } from 'fastify';
import { recordWorkspaceUsage } from '../domain/workspace-usage.js';
import type { WorkspaceRow } from '../store/queries/workspaces.js';
import type { Store } from '../store/store.js';

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

  constructor(private readonly store: Store) {}

  /** Records the use in the background; a failure is logged, never thrown. */
  record(workspace: WorkspaceRow, log: FastifyBaseLogger): void {
    const now = this.store.clock.now().getTime();
    const last = this.#last.get(workspace.id);
    if (last !== undefined && now >= last && now - last < USAGE_INTERVAL_MS) return;
    if (this.#last.size > MAX_REMEMBERED) this.#last.clear();
    this.#last.set(workspace.id, now);
    recordWorkspaceUsage(this.store, workspace).catch((error: unknown) =>
      log.warn({ err: error, workspace: workspace.id }, 'could not record workspace usage'),
    );
  }
}
