/** What the templates' answers say of their use: computed from every workspace and a month of builds. */
export interface TemplateStatistics {
  /** Distinct owners of the template's live workspaces. */
  readonly activeUsers: number;
  /** Durations in ms of successful builds started in the window, by transition. */
  readonly buildDurations: ReadonlyMap<string, readonly number[]>;
}

/** How long figures are kept when nothing here says they changed: bounds how stale another replica's change leaves them. */
const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Templates' statistics, so that listing templates costs the page and not a month of builds: each
 * request read every successful build of the last 30 days and every workspace of its templates
 * (378 µs a request with 1,000 workspaces, the most expensive query of the scale bench's dashboard).
 * The reference keeps these figures in a cache it refreshes periodically too. Here a template's
 * figures are dropped when this replica sees them change (a workspace made, a build queued or
 * finished), so that they follow at once; other replicas' changes show within a minute.
 */
export class TemplateStatisticsCache {
  readonly #entries = new Map<string, { readonly statistics: TemplateStatistics; readonly at: number }>();
  /** Per template, the generation of its last invalidation: figures computed before it are not kept. */
  readonly #invalidated = new Map<string, number>();
  #generation = 0;

  /** The figures still fresh, of those asked for. */
  fresh(templateIds: readonly string[]): Map<string, TemplateStatistics> {
    const now = performance.now();
    const found = new Map<string, TemplateStatistics>();
    for (const id of templateIds) {
      const entry = this.#entries.get(id);
      if (entry && now - entry.at <= TTL_MS) found.set(id, entry.statistics);
    }
    return found;
  }

  /** Marks the start of a computation: what `keep` is given with it is dropped if invalidated meanwhile. */
  begin(): number {
    return this.#generation;
  }

  /** Keeps figures computed since `begun`, except for templates that changed meanwhile. */
  keep(computed: ReadonlyMap<string, TemplateStatistics>, begun: number): void {
    if (this.#entries.size + computed.size > MAX_ENTRIES) this.#entries.clear();
    const at = performance.now();
    for (const [id, statistics] of computed) {
      if ((this.#invalidated.get(id) ?? -1) >= begun) continue;
      this.#entries.set(id, { statistics, at });
    }
  }

  /** The template's figures changed (or may have): computed again on the next read. */
  invalidate(templateId: string): void {
    this.#entries.delete(templateId);
    if (this.#invalidated.size >= MAX_ENTRIES) this.#invalidated.clear();
    this.#invalidated.set(templateId, this.#generation++);
  }
}
