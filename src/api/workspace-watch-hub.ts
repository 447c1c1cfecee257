import { workspaceEventsChannel } from '../domain/workspace-events.js';
import { NotFoundError } from '../lib/errors.js';
import type { Subject } from '../rbac/index.js';
import type { Workspace } from '../sdk/wire/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { PubSub } from '../store/pubsub.js';

/** Delivers one answer to one watcher: the workspace (`data`) or why it could not be read (`error`). */
export type WatchSend = (event: 'data' | 'error', data: unknown) => void;

/** Reads a workspace as the store's subject may see it; undefined when there is nothing to show. */
export type WatchedWorkspaceReader = (store: AuthorizedStore, workspaceId: string) => Promise<Workspace | undefined>;

/** What the hub needs: the events, how to read a workspace, and who counts the streams. */
export interface WorkspaceWatchHubOptions {
  readonly pubsub: PubSub;
  readonly read: WatchedWorkspaceReader;
  /** Told after every change of how many watchers are open and how many groups (shared re-reads) serve them. */
  readonly onCounts?: ((counts: { readonly groups: number; readonly watchers: number }) => void) | undefined;
}

/** One open stream. */
interface Watcher {
  readonly send: WatchSend;
}

/** The watchers of one workspace who act as one and the same subject: one subscription, one re-read per round. */
interface Group {
  readonly key: string;
  readonly workspaceId: string;
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
}

/**
 * Serves the watch streams of workspaces (`/watch` and `/watch-ws`). A stream gets the workspace on
 * connect and again after each event of it, read (and authorized) afresh each time, so a stream
 * never shows what its caller may not see. Streams of the same workspace whose callers are the same
 * subject (same id, type, roles with their permissions, groups and scope; see {@link subjectKey})
 * would read exactly the same answer, so they share one subscription and one re-read per event,
 * made through the store of one of them. While a re-read runs, further events only mark the group
 * changed, and one more re-read follows it: a burst of events costs two reads, not one per event
 * and stream.
 */
export class WorkspaceWatchHub {
  readonly #options: WorkspaceWatchHubOptions;
  readonly #groups = new Map<string, Group>();
  #watchers = 0;

  constructor(options: WorkspaceWatchHubOptions) {
    this.#options = options;
  }

  /**
   * Starts sending `workspaceId` as `store`'s subject sees it to `send`: first its current state
   * (read after the subscription is live, so no change falls in between), then after every event.
   * Returns the function that stops it; the last stop of a group ends its subscription.
   */
  watch(workspaceId: string, store: AuthorizedStore, send: WatchSend): () => void {
    const key = `${workspaceId} ${subjectKey(store.subject)}`;
    const group = this.#groups.get(key) ?? this.#open(key, workspaceId, store);
    const watcher: Watcher = { send };
    group.members++;
    this.#watchers++;
    this.#report();
    let stopped = false;
    void group.subscribed.then((unsubscribe) => {
      if (stopped) return;
      if (!unsubscribe) {
        deliver([watcher], 'error', { message: 'Could not watch the workspace.' });
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

  #open(key: string, workspaceId: string, store: AuthorizedStore): Group {
    const group: Group = {
      key,
      workspaceId,
      store,
      members: 0,
      watchers: new Set(),
      fresh: new Set(),
      changed: false,
      reading: false,
      subscribed: Promise.resolve(undefined),
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

  #close(group: Group): void {
    if (this.#groups.get(group.key) === group) this.#groups.delete(group.key);
    void group.subscribed.then((unsubscribe) => unsubscribe?.()).catch(() => undefined);
  }

  /** Starts re-reading unless a re-read is already running (which then looks at `changed` and `fresh` again). */
  #pump(group: Group): void {
    if (group.reading) return;
    group.reading = true;
    void this.#drain(group);
  }

  async #drain(group: Group): Promise<void> {
    try {
      while (group.changed || group.fresh.size > 0) {
        // After an event everyone gets the new state; otherwise only newcomers need one.
        const recipients = [...(group.changed ? group.watchers : group.fresh)];
        group.changed = false;
        group.fresh.clear();
        try {
          const answer = await this.#options.read(group.store, group.workspaceId);
          if (answer) deliver(recipients, 'data', answer, group.watchers);
        } catch (error) {
          const message = error instanceof NotFoundError ? 'The workspace is gone.' : 'Could not read the workspace.';
          deliver(recipients, 'error', { message }, group.watchers);
        }
      }
    } finally {
      // In the same turn as the last look at `changed`: an event after it finds no read running and starts one.
      group.reading = false;
    }
  }

  #report(): void {
    this.#options.onCounts?.({ groups: this.#groups.size, watchers: this.#watchers });
  }
}

/** Sends to each recipient still open (in `open`, when given); one failing stream does not keep it from the others. */
function deliver(recipients: readonly Watcher[], event: 'data' | 'error', data: unknown, open?: ReadonlySet<Watcher>): void {
  for (const watcher of recipients) {
    if (open && !open.has(watcher)) continue;
    try {
      watcher.send(event, data);
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
function subjectKey(subject: Subject): string {
  return JSON.stringify(subject);
}
