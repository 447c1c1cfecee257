import type { Kysely } from 'kysely';
import type { DialectName } from './database.js';
import { appendAgentLogGroup, appendAgentLogs, type AgentLogAppend, type AgentLogAppendOutcome } from './queries/workspace-agents.js';
import type { Database } from './schema.js';

interface Waiting extends AgentLogAppend {
  resolve(outcome: AgentLogAppendOutcome | undefined): void;
  reject(error: unknown): void;
}

/**
 * Stores agents' log batches, several in one transaction when several are waiting: agents send
 * batches all the time, and a commit each cost about as much as inserting a hundred lines. A
 * batch that finds the writer idle waits one turn of the event loop, so that the batches of
 * requests read in the same turn join it; batches that come while a group is being stored go
 * together into the next one. Each batch is still stored or refused as a whole, against its own
 * agent's limit, and an agent's batches in the order they came.
 */
export class AgentLogWriter {
  readonly #db: Kysely<Database>;
  readonly #dialect: DialectName;
  #waiting: Waiting[] = [];
  #busy = false;

  constructor(db: Kysely<Database>, dialect: DialectName) {
    this.#db = db;
    this.#dialect = dialect;
  }

  /** Stores one batch (see `appendAgentLogs`); undefined when the agent is gone. */
  append(agentId: string, batch: AgentLogAppend['batch']): Promise<AgentLogAppendOutcome | undefined> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ agentId, batch, resolve, reject });
      if (!this.#busy) {
        this.#busy = true;
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#waiting.length > 0) {
      const group = this.#waiting;
      this.#waiting = [];
      await this.#store(group);
    }
    this.#busy = false;
  }

  async #store(waiting: readonly Waiting[]): Promise<void> {
    // By agent, each agent's batches in the order they came: two groups (of two replicas) then
    // lock the agents' rows in the same order and cannot deadlock.
    const group = [...waiting].sort((a, b) => (a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0));
    try {
      const outcomes = await appendAgentLogGroup(this.#db, this.#dialect, group);
      group.forEach((batch, i) => batch.resolve(outcomes[i]));
      return;
    } catch (error) {
      if (group.length === 1) {
        group[0]?.reject(error);
        return;
      }
    }
    // The group's transaction failed and stored nothing: each batch again on its own, so that a
    // failure is answered to the batch that caused it alone.
    for (const batch of group) {
      await appendAgentLogs(this.#db, this.#dialect, batch.agentId, batch.batch).then(batch.resolve, batch.reject);
    }
  }
}
