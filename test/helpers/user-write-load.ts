import assert from 'node:assert/strict';
import type { CoveClient } from '../../src/sdk/client.js';

/** A stream of acknowledged writes through the API, for tests that copy a database while it is written. */
export interface UserWriteLoad {
  /** Usernames whose creation the API answered, in the order answered. */
  readonly acknowledged: readonly string[];
  /** Errors of writes that failed; a writer stops at its first. */
  readonly failures: readonly unknown[];
  /** Stops the writers and waits for their last writes to be answered. */
  stop(): Promise<void>;
}

/**
 * Starts `lanes` writers, each creating users as fast as the daemon answers, and resolves once 50
 * writes were acknowledged without a failure.
 */
export async function startUserWriteLoad(owner: CoveClient, organization: string, lanes = 4): Promise<UserWriteLoad> {
  const acknowledged: string[] = [];
  const failures: unknown[] = [];
  let writing = true;
  const writer = async (lane: number): Promise<void> => {
    for (let n = 0; writing; n++) {
      const username = `w${lane}-${n}`;
      try {
        await owner.createUser({ email: `${username}@example.com`, username, login_type: 'none', organization_ids: [organization] });
        acknowledged.push(username);
      } catch (error) {
        failures.push(error);
        return;
      }
    }
  };
  const writers = Array.from({ length: lanes }, (_, lane) => writer(lane));
  while (acknowledged.length < 50 && failures.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(failures, []);
  return {
    acknowledged,
    failures,
    stop: async () => {
      writing = false;
      await Promise.all(writers);
    },
  };
}
