import { workspaceEventsChannel } from '../domain/workspace-events.js';
import type { Subject } from '../rbac/index.js';
import type { Workspace } from '../sdk/wire/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { PubSub } from '../store/pubsub.js';

/**
 * Delivers one answer to one watcher: the workspace (`data`) or why it could not be read (`error`),
 * as JSON text, made once for all the watchers it goes to.
 */
export type WatchSend = (event: 'data' | 'error', json: string) => void;

/**
 * Reads workspaces as the store's subject may see them: in `answers` by id, the answer, or undefined
 * when there is nothing to show yet; in `refused`, those the subject may no longer read. An id in
 * neither is gone. `memos` keeps, by id, what the reader wants back with the next re-read of the
 * same workspace (as `previous`): what it read last, to read ahead of what it must read first.
 */
export type WatchedWorkspaceReader<Memo> = (
  store: AuthorizedStore,
  workspaceIds: readonly string[],
  previous: ReadonlyMap<string, Memo>,
) => Promise<{
  readonly answers: ReadonlyMap<string, Workspace | undefined>;
  readonly refused: ReadonlySet<string>;
  readonly memos: ReadonlyMap<string, Memo>;
}>;

/** Most workspaces read together in one re-read. */
const MAX_BATCH = 100;
/** How long a watcher waits before its subscription or its read is tried again after a failure. */
const RETRY_MS = 1000;

/** What the hub needs: the events, how to read a workspace, and who counts the streams. */
export interface WorkspaceWatchHubOptions<Memo> {
  readonly pubsub: PubSub;
  readonly read: WatchedWorkspaceReader<Memo>;
  /**
   * Which re-reads may share a read, by what the reader kept of each workspace: groups whose memos
   * give different kinds are read apart (side by side). A reader that is quicker for some memos
   * (it reads ahead for them) keeps those from waiting for the slower read of the others.
   */
  readonly readKind?: ((memo: Memo | undefined) => string) | undefined;
  /** Told after every change of how many watchers are open and how many groups (shared re-reads) serve them. */
  readonly onCounts?: ((counts: { readonly groups: number; readonly watchers: number }) => void) | undefined;
}

/** One open stream. */
interface Watcher {
  readonly send: WatchSend;
}

/** The watchers of one workspace who act as one and the same subject: one subscription, one re-read per round. */
interface Group<Memo> {
  readonly key: string;
  readonly workspaceId: string;
  /** Which subject reads for the group: groups of the same subject are re-read together. */
  readonly subjectKey: string;
  /** The store of the first watcher; every other member's subject is identical to its subject (see {@link subjectKey}). */
  readonly store: AuthorizedStore;
  /** Watchers that have joined or are still joining; the group ends when this falls to zero. */
  members: number;
  /** Joined watchers: the subscription was live before any of them was added. */
  readonly watchers: Set<Watcher>;
  /** Joined watchers that have not been sent their first answer yet. */
  readonly fresh: Set<Watcher>;
  /** An event arrived since the last re-read began. */
  changed: boolean;
  /** A re-read is running; events meanwhile only set `changed`. */
  reading: boolean;
  /** Resolves when the subscription is live: to the function that ends it, or undefined when subscribing failed. */
  subscribed: Promise<(() => Promise<void>) | undefined>;
  /** What the reader kept of the last re-read. */
  memo: Memo | undefined;
}

/**
 * Serves the watch streams of workspaces (`/watch` and `/watch-ws`). A stream gets the workspace on
 * connect and again after each event of it, read (and authorized) afresh each time, so a stream
 * never shows what its caller may not see. Streams of the same workspace whose callers are the same
 * subject (same id, type, roles with their permissions, groups and scope; see {@link subjectKey})
 * would read exactly the same answer, so they share one subscription and one re-read per event,
 * made through the store of one of them. While a re-read runs, further events only mark the group
 * changed, and one more re-read follows it: a burst of events costs two reads, not one per event
 * and stream. Groups of the same subject (and kind of read, see readKind) due for a re-read in the
 * same turn of the event loop are read together, in one read of a list: when many builds finish at
 * once, a few reads serve them all.
 */
export class WorkspaceWatchHub<Memo> {
  readonly #options: WorkspaceWatchHubOptions<Memo>;
  readonly #groups = new Map<string, Group<Memo>>();
  /** Groups due for a re-read, by subject and kind of read, until the end of this turn of the event loop. */
  readonly #due = new Map<string, { readonly store: AuthorizedStore; readonly groups: Group<Memo>[] }>();
  #watchers = 0;

  constructor(options: WorkspaceWatchHubOptions<Memo>) {
    this.#options = options;
    // Events other replicas sent while the pubsub was not listening were missed: read every workspace again.
    options.pubsub.onResume(() => {
      for (const group of this.#groups.values()) {
        group.changed = true;
        this.#pump(group);
      }
    });
  }

  /**
   * Starts sending `workspaceId` as `store`'s subject sees it to `send`: first its current state
   * (read after the subscription is live, so no change falls in between), then after every event.
   * Returns the function that stops it; the last stop of a group ends its subscription.
   */
  watch(workspaceId: string, store: AuthorizedStore, send: WatchSend): () => void {
    let stopped = false;
    let current: (() => void) | undefined;
    const attempt = (): void => {
      current = this.#join(workspaceId, store, send, () => {
        // The subscription failed (the database's notifications are down, say during an outage):
        // the watcher was told, and is joined again shortly rather than left without updates.
        const failed = current;
        setTimeout(() => {
          if (stopped) return;
          failed?.();
          attempt();
        }, RETRY_MS).unref();
      });
    };
    attempt();
    return () => {
      stopped = true;
      current?.();
    };
  }

  /** One attempt at {@link watch}: `onRefused` is told when its subscription could not be made. */
  #join(workspaceId: string, store: AuthorizedStore, send: WatchSend, onRefused: () => void): () => void {
    const subject = subjectKey(store.subject);
    const key = `${workspaceId} ${subject}`;
    const group = this.#groups.get(key) ?? this.#open(key, workspaceId, subject, store);
    const watcher: Watcher = { send };
    group.members++;
    this.#watchers++;
    this.#report();
    let stopped = false;
    void group.subscribed.then((unsubscribe) => {
      if (stopped) return;
      if (!unsubscribe) {
        deliver([watcher], 'error', { message: 'Could not watch the workspace.' });
        onRefused();
        return;
      }
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
      this.#watchers--;
      if (group.members === 0) this.#close(group);
      this.#report();
    };
  }

  #open(key: string, workspaceId: string, subject: string, store: AuthorizedStore): Group<Memo> {
    const group: Group<Memo> = {
      key,
      workspaceId,
      subjectKey: subject,
      store,
      members: 0,
      watchers: new Set(),
      fresh: new Set(),
      changed: false,
      reading: false,
      subscribed: Promise.resolve(undefined),
      memo: undefined,
    };
    group.subscribed = this.#options.pubsub
      .subscribe(workspaceEventsChannel(workspaceId), () => {
        group.changed = true;
        this.#pump(group);
      })
      .catch(() => {
        // Whoever watches next tries again with a group of their own.
        if (this.#groups.get(key) === group) this.#groups.delete(key);
        this.#report();
        return undefined;
      });
    this.#groups.set(key, group);
    return group;
  }

  #close(group: Group<Memo>): void {
    if (this.#groups.get(group.key) === group) this.#groups.delete(group.key);
    void group.subscribed.then((unsubscribe) => unsubscribe?.()).catch(() => undefined);
  }

  /** Queues a re-read unless one is already queued or running (which then looks at `changed` and `fresh` again). */
  #pump(group: Group<Memo>): void {
    if (group.reading) return;
    group.reading = true;
    if (this.#due.size === 0) setImmediate(() => this.#readDue());
    const key = this.#options.readKind ? `${group.subjectKey}\n${this.#options.readKind(group.memo)}` : group.subjectKey;
    const due = this.#due.get(key);
    if (due) due.groups.push(group);
    else this.#due.set(key, { store: group.store, groups: [group] });
  }

  #readDue(): void {
    const due = [...this.#due.values()];
    this.#due.clear();
    for (const { store, groups } of due) {
      for (let start = 0; start < groups.length; start += MAX_BATCH) void this.#read(store, groups.slice(start, start + MAX_BATCH));
    }
  }

  async #read(store: AuthorizedStore, groups: readonly Group<Memo>[]): Promise<void> {
    // After an event everyone gets the new state; otherwise only newcomers need one.
    const recipients = groups.map((group) => {
      const those = [...(group.changed ? group.watchers : group.fresh)];
      group.changed = false;
      group.fresh.clear();
      return those;
    });
    try {
      const previous = new Map(groups.flatMap((group) => (group.memo === undefined ? [] : [[group.workspaceId, group.memo] as const])));
      const { answers, refused, memos } = await this.#options.read(
        store,
        groups.map((group) => group.workspaceId),
        previous,
      );
      groups.forEach((group, index) => {
        group.memo = memos.get(group.workspaceId);
        const to = recipients[index] ?? [];
        const answer = answers.get(group.workspaceId);
        if (answer) deliver(to, 'data', answer, group.watchers);
        else if (refused.has(group.workspaceId)) deliver(to, 'error', { message: 'Could not read the workspace.' }, group.watchers);
        else if (!answers.has(group.workspaceId)) deliver(to, 'error', { message: 'The workspace is gone.' }, group.watchers);
      });
    } catch {
      groups.forEach((group, index) => {
        const those = recipients[index] ?? [];
        deliver(those, 'error', { message: 'Could not read the workspace.' }, group.watchers);
        // The database did not answer: those watchers are sent the state once it does, not only
        // after the workspace's next event.
        setTimeout(() => {
          for (const watcher of those) if (group.watchers.has(watcher)) group.fresh.add(watcher);
          if (group.fresh.size > 0 && this.#groups.get(group.key) === group) this.#pump(group);
        }, RETRY_MS).unref();
      });
    } finally {
      for (const group of groups) {
        group.reading = false;
        // Events during the read, or watchers who joined meanwhile, need one more; an ended group needs none.
        if ((group.changed || group.fresh.size > 0) && this.#groups.get(group.key) === group) this.#pump(group);
      }
    }
  }

  #report(): void {
    this.#options.onCounts?.({ groups: this.#groups.size, watchers: this.#watchers });
  }
}

/** Sends to each recipient still open (in `open`, when given); one failing stream does not keep it from the others. */
function deliver(recipients: readonly Watcher[], event: 'data' | 'error', data: unknown, open?: ReadonlySet<Watcher>): void {
  let json: string | undefined;
  for (const watcher of recipients) {
    if (open && !open.has(watcher)) continue;
    try {
      json ??= JSON.stringify(data);
      watcher.send(event, json);
    } catch {
      // The stream is going away; its close stops it.
    }
  }
}

/**
 * Equal exactly when two subjects are authorized alike: an AuthorizedStore decides by its subject
 * alone, and the subject is plain data (roles carry their permissions, so a custom role changed
 * between two sign-ins gives a different key). Two equal subjects built in another order only
 * get two groups; two different subjects never share one.
 */
export function subjectKey(subject: Subject): string {
  return JSON.stringify(subject);
}
