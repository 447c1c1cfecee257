import type { DaemonLiveness, JobCancellation } from '../store/rows.js';

/**
 * A provisioner daemon neither heard from for this long nor connected to this process is gone:
 * connected daemons refresh `last_seen_at` every 10 s, so this is four missed heartbeats.
 */
export const DAEMON_GONE_MS = 45_000;

/** What a canceled job that no live daemon held says in its logs, since it ends without a word from one. */
const ENDED_WITHOUT_DAEMON = [
  '',
  '====================',
  'Cove: The provisioner daemon that ran this job has stopped; the job was canceled at once, without it.',
  '====================',
  '',
];

/**
 * The provisioner daemons connected to this process right now. Another replica's daemons are known
 * only by the `last_seen_at` their heartbeats write; these are known for certain, whatever the
 * clock says, so a quiet moment between heartbeats never makes them look gone.
 */
export class ConnectedDaemons {
  /** Open connections per daemon id: a reconnecting daemon may briefly hold two. */
  readonly #connections = new Map<string, number>();

  add(id: string): void {
    this.#connections.set(id, (this.#connections.get(id) ?? 0) + 1);
  }

  delete(id: string): void {
    const count = (this.#connections.get(id) ?? 0) - 1;
    if (count > 0) this.#connections.set(id, count);
    else this.#connections.delete(id);
  }

  /** Which daemons count as alive at `now`: connected here, or heard from within {@link DAEMON_GONE_MS}. */
  liveness(now: Date): DaemonLiveness {
    return { seenSince: new Date(now.getTime() - DAEMON_GONE_MS).toISOString(), connectedIds: [...this.#connections.keys()] };
  }

  /** How a cancel at `now` treats a started job: one whose daemon is gone ends at once, saying so. */
  cancellation(now: Date): JobCancellation {
    return { live: this.liveness(now), orphanLines: ENDED_WITHOUT_DAEMON };
  }
}
