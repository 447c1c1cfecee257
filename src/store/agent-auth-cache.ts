import type { AgentWithOwners } from './queries/workspace-agents.js';

const MAX_ENTRIES = 10_000;

/** What an invalidation drops: the agents of one workspace, or (`*`) every agent. */
export type AgentAuthInvalidation = { readonly workspaceId: string } | '*';

/**
 * Agents that authenticated recently, by the hash of their token: the agent, what it belongs to,
 * and that its build was current then. Agents send log batches all the time, and looking the
 * token up and checking its build took six queries a batch.
 *
 * An entry is good only as long as nothing it was decided on changes: the agent's token, the
 * builds of its workspace and their jobs, the workspace itself (deleted, dormant). Every store
 * write that changes one of them must run through `Store.changingAgentAuths`: while such a write
 * is under way the cache answers nothing and keeps nothing, and when it ends (committed or not)
 * what it may have changed is dropped, here and on other replicas. A lookup that was under way
 * when a write began or ended is not kept either (see `generation`). The time-to-live only bounds
 * how long a write that forgot to say so could matter.
 */
export class AgentAuthCache {
  readonly #entries = new Map<string, { readonly found: AgentWithOwners; readonly loadedAt: number }>();
  readonly #ttlMs: number;
  #generation = 0;
  #changing = 0;

  constructor(ttlMs: number) {
    this.#ttlMs = ttlMs;
  }

  /** Counts invalidations: take it before looking an agent up, and give it to `set` with the result. */
  get generation(): number {
    return this.#generation;
  }

  get(tokenHash: string, nowMs: number): AgentWithOwners | undefined {
    if (this.#changing > 0) return undefined;
    const entry = this.#entries.get(tokenHash);
    if (!entry) return undefined;
    if (nowMs - entry.loadedAt > this.#ttlMs || nowMs < entry.loadedAt) {
      this.#entries.delete(tokenHash);
      return undefined;
    }
    return entry.found;
  }

  /** Keeps an agent looked up since `generation`, unless a write began or ended meanwhile or is under way. */
  set(tokenHash: string, found: AgentWithOwners, nowMs: number, generation: number): void {
    if (generation !== this.#generation || this.#changing > 0) return;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(tokenHash, { found, loadedAt: nowMs });
  }

  /** A write that may change `target`'s answers begins: see the class. */
  beginChange(target: AgentAuthInvalidation): void {
    this.#changing++;
    this.invalidate(target);
  }

  /** The write begun with `beginChange(target)` ended, whether it was committed or not. */
  endChange(target: AgentAuthInvalidation): void {
    this.#changing--;
    this.invalidate(target);
  }

  /** Drops what `target` names; another replica's write ends here so. */
  invalidate(target: AgentAuthInvalidation): void {
    this.#generation++;
    if (target === '*') {
      this.#entries.clear();
      return;
    }
    for (const [tokenHash, entry] of this.#entries) {
      if (entry.found.workspace.id === target.workspaceId) this.#entries.delete(tokenHash);
    }
  }
}
