/** The channel replicas announce themselves on; plain, so no kind of thing shares it. */
export const PRESENCE_CHANNEL = 'cove_replicas';

/**
 * The advisory lock each replica holds, shared, on its listening connection for as long as that
 * connection lives: the holders of the lock are the replicas listening to this database. Two
 * 32-bit keys, a form the migrations' single 64-bit key never takes.
 */
const LOCK_KEYS = [0x636f7665, 1] as const;

/** How long a joining replica waits for the others to answer before it goes on without them. */
const ANSWER_TIMEOUT_MS = 2_000;

/** The listening connection's queries, run one after another. */
export type PresenceQuery = (text: string, values?: readonly string[]) => Promise<{ readonly rows: readonly Record<string, unknown>[] }>;

/**
 * Whether any other replica listens to this database, so that notifications need to leave this
 * process at all: a single replica, the common case, then sends none, and each of its events
 * costs no statement.
 *
 * A replica holds a shared advisory lock on its listening connection; PostgreSQL drops it with
 * the connection, so the holders are exactly the replicas alive. A replica that joins counts the
 * others; if there are any, it announces itself on {@link PRESENCE_CHANNEL} and waits until each
 * has answered (or two seconds have passed) before it goes on to serve. A replica that hears an
 * announcement sends its notifications from then on, and answers only after that. A replica that
 * is gone is noticed by counting again (`recount`), which a timer does; a count that saw nobody
 * does not switch sending off if an announcement arrived while it ran.
 */
export class ReplicaPresence {
  readonly #query: PresenceQuery;
  readonly #origin: string;
  #othersListening = false;
  /** Announcements heard so far: a count that began before one of them is out of date. */
  #announcementsHeard = 0;
  /** While joining: the replicas still expected to answer, and what to call once none is. */
  #awaited: { readonly count: number; readonly answered: Set<string>; readonly done: () => void } | undefined;

  constructor(query: PresenceQuery, origin: string) {
    this.#query = query;
    this.#origin = origin;
  }

  /** Whether another replica may be listening; false only when none is. */
  get othersListening(): boolean {
    return this.#othersListening;
  }

  /** Takes this replica's place among the listeners and, when there are others, makes sure they know of it. */
  async join(): Promise<void> {
    await this.#query(`select pg_advisory_lock_shared(${LOCK_KEYS[0]}, ${LOCK_KEYS[1]})`);
    await this.#query(`LISTEN ${PRESENCE_CHANNEL}`);
    const others = await this.#countOthers();
    if (others === 0) return;
    this.#othersListening = true;
    let done!: () => void;
    const answered = new Promise<void>((resolve) => (done = resolve));
    this.#awaited = { count: others, answered: new Set(), done };
    const timer = setTimeout(done, ANSWER_TIMEOUT_MS);
    try {
      await this.#say('joined');
      await answered;
    } finally {
      clearTimeout(timer);
      this.#awaited = undefined;
    }
  }

  /** A message on the presence channel from another replica (`origin`). */
  heard(origin: string, message: string): void {
    if (message === 'joined') {
      this.#announcementsHeard++;
      this.#othersListening = true;
      void this.#say(`answer ${origin}`).catch(() => undefined);
      return;
    }
    const awaited = this.#awaited;
    if (awaited && message === `answer ${this.#origin}`) {
      awaited.answered.add(origin);
      if (awaited.answered.size >= awaited.count) awaited.done();
    }
  }

  /** Counts the others again: sending stops once the last one is gone. */
  async recount(): Promise<void> {
    const heardBefore = this.#announcementsHeard;
    const others = await this.#countOthers();
    if (others > 0) this.#othersListening = true;
    else if (this.#announcementsHeard === heardBefore) this.#othersListening = false;
  }

  async #countOthers(): Promise<number> {
    const { rows } = await this.#query(
      `select count(*) as "others" from pg_locks
        where locktype = 'advisory' and granted and pid <> pg_backend_pid()
          and database = (select oid from pg_database where datname = current_database())
          and classid = ${LOCK_KEYS[0]} and objid = ${LOCK_KEYS[1]} and objsubid = 2`,
    );
    return Number(rows[0]?.['others'] ?? 0);
  }

  #say(message: string): Promise<unknown> {
    return this.#query('select pg_notify($1, $2)', [PRESENCE_CHANNEL, `${this.#origin}\n${message}`]);
  }
}
