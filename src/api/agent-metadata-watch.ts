import { readDefinition } from '../domain/agent-definition.js';
import { agentMetadataChannel, wireMetadata, type MetadataResult } from '../domain/agent-metadata.js';
import type { Clock } from '../lib/clock.js';
import type { PlannedAgent } from '../sdk/wire/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { PubSub } from '../store/pubsub.js';
import type { AgentWithOwners } from '../store/rows.js';
import { subjectKey } from './workspace-watch-hub.js';

/** Delivers one answer to one watcher: the metadata list (`data`) or why it could not be read (`error`), as JSON. */
export type MetadataSend = (event: 'data' | 'error', json: string) => void;

/** As the reference: with nothing new, the list is sent again this often, so the items' ages stay true. */
const AGE_REFRESH_MS = 5_000;

interface Watcher {
  readonly send: MetadataSend;
}

/** The watchers of one agent who are one and the same subject: one subscription, one read per change. */
interface Group {
  readonly key: string;
  readonly found: AgentWithOwners;
  readonly definition: PlannedAgent;
  /** The store of the first watcher; every other member's subject is identical to its subject. */
  readonly store: AuthorizedStore;
  members: number;
  readonly watchers: Set<Watcher>;
  /** Joined watchers not sent anything yet. */
  readonly fresh: Set<Watcher>;
  /** What the last read found; undefined before the first. */
  results: readonly MetadataResult[] | undefined;
  /** A change arrived since the last read began. */
  changed: boolean;
  reading: boolean;
  lastSentAt: number;
  subscribed: Promise<(() => Promise<void>) | undefined>;
  readonly refresh: NodeJS.Timeout;
}

/**
 * Serves the agent metadata watches. A watch gets the agent's metadata items on connect, then the
 * list again after every change the agent reports (published on the agent's metadata channel, so
 * a report through another replica reaches it too). Watches of the same agent by the same subject
 * share one subscription and one read per change: while a read runs, further changes only mark the
 * group changed and one more read follows, so a burst of reports costs two reads, however many
 * watch. Between changes the list is re-sent from memory every few seconds, with fresh ages.
 */
export class AgentMetadataWatch {
  readonly #pubsub: PubSub;
  readonly #clock: Clock;
  readonly #groups = new Map<string, Group>();

  constructor(options: { readonly pubsub: PubSub; readonly clock: Clock }) {
    this.#pubsub = options.pubsub;
    this.#clock = options.clock;
    // Reports other replicas published while the pubsub was not listening were missed: read again.
    options.pubsub.onResume(() => {
      for (const group of this.#groups.values()) {
        group.changed = true;
        this.#pump(group);
      }
    });
  }

  /**
   * Starts sending the metadata of `found`'s agent as `store`'s subject reads it to `send`, first
   * as it is (read once the subscription is live, so no change falls in between), then after every
   * change. Returns the function that stops it.
   */
  watch(found: AgentWithOwners, store: AuthorizedStore, send: MetadataSend): () => void {
    const key = `${found.agent.id} ${subjectKey(store.subject)}`;
    const group = this.#groups.get(key) ?? this.#open(key, found, store);
    const watcher: Watcher = { send };
    group.members++;
    let stopped = false;
    void group.subscribed.then((unsubscribe) => {
      if (stopped) return;
      if (!unsubscribe) return deliver([watcher], 'error', JSON.stringify({ message: 'Could not watch the agent metadata.' }));
      group.watchers.add(watcher);
      group.fresh.add(watcher);
      this.#pump(group);
    });
    return () => {
      if (stopped) return;
      stopped = true;
      group.watchers.delete(watcher);
      group.fresh.delete(watcher);
      group.members--;
      if (group.members === 0) this.#close(group);
    };
  }

  #open(key: string, found: AgentWithOwners, store: AuthorizedStore): Group {
    const refresh = setInterval(() => this.#refresh(group), 1_000);
    refresh.unref();
    const group: Group = {
      key,
      found,
      definition: readDefinition(found.agent.definition),
      store,
      members: 0,
      watchers: new Set(),
      fresh: new Set(),
      results: undefined,
      changed: false,
      reading: false,
      lastSentAt: 0,
      subscribed: Promise.resolve(undefined),
      refresh,
    };
    group.subscribed = this.#pubsub
      .subscribe(agentMetadataChannel(found.agent.id), () => {
        group.changed = true;
        this.#pump(group);
      })
      .catch(() => {
        // Whoever watches next tries again with a group of their own.
        this.#close(group);
        return undefined;
      });
    this.#groups.set(key, group);
    return group;
  }

  #close(group: Group): void {
    if (this.#groups.get(group.key) === group) this.#groups.delete(group.key);
    clearInterval(group.refresh);
    void group.subscribed.then((unsubscribe) => unsubscribe?.()).catch(() => undefined);
  }

  /** Reads (or, for newcomers with nothing changed, sends what was read) unless a read is already running. */
  #pump(group: Group): void {
    if (group.reading || this.#groups.get(group.key) !== group) return;
    if (!group.changed && group.fresh.size === 0) return;
    group.reading = true;
    void this.#read(group);
  }

  async #read(group: Group): Promise<void> {
    const everyone = group.changed || group.results === undefined;
    group.changed = false;
    try {
      if (everyone) group.results = await group.store.workspaceAgents.metadata(group.found);
      this.#send(group, everyone ? group.watchers : group.fresh);
    } catch {
      deliver([...group.fresh], 'error', JSON.stringify({ message: 'Could not read the agent metadata.' }));
      group.fresh.clear();
    } finally {
      group.reading = false;
      this.#pump(group);
    }
  }

  /** Re-sends the list from memory when nothing was sent for a while, for the ages. */
  #refresh(group: Group): void {
    if (group.reading || group.results === undefined || group.watchers.size === 0) return;
    if (this.#clock.now().getTime() - group.lastSentAt < AGE_REFRESH_MS) return;
    this.#send(group, group.watchers);
  }

  #send(group: Group, recipients: ReadonlySet<Watcher>): void {
    const now = this.#clock.now();
    const json = JSON.stringify(wireMetadata(group.definition, group.results ?? [], now));
    deliver([...recipients], 'data', json);
    for (const watcher of recipients) group.fresh.delete(watcher);
    if (recipients === group.watchers) group.fresh.clear();
    group.lastSentAt = now.getTime();
  }
}

/** Sends to each recipient; one failing stream does not keep it from the others. */
function deliver(recipients: readonly Watcher[], event: 'data' | 'error', json: string): void {
  for (const watcher of recipients) {
    try {
      watcher.send(event, json);
    } catch {
      // The stream is going away; its close stops it.
    }
  }
}
