import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { WorkspaceWatchHub, type WatchedWorkspaceReader } from '../../src/api/workspace-watch-hub.js';
import { workspaceEventsChannel } from '../../src/domain/workspace-events.js';
import type { Subject } from '../../src/rbac/index.js';
import type { Workspace } from '../../src/sdk/wire/index.js';
import type { AuthorizedStore } from '../../src/store/authorized-store.js';
import { MemoryPubSub } from '../../src/store/pubsub.js';

const alice = { id: 'alice', type: 'user', roles: [], groups: [], scope: 'all' } as unknown as Subject;
/** The hub only hands the store to its reader and keys groups by the store's subject. */
const aliceStore = { subject: alice } as unknown as AuthorizedStore;

/** A reader that answers every id and keeps, as each one's memo, the kind the test gave it. */
function recordingReader(kinds: Map<string, string>) {
  const reads: string[][] = [];
  const read: WatchedWorkspaceReader<string> = async (_store, ids) => {
    reads.push([...ids].sort());
    return {
      answers: new Map(ids.map((id) => [id, { id } as unknown as Workspace])),
      refused: new Set(),
      memos: new Map(ids.map((id) => [id, kinds.get(id) ?? 'after'])),
    };
  };
  return { reads, read };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await nextTurn();
}

describe('workspace watch hub', () => {
  const kinds = new Map([
    ['running', 'ahead'],
    ['settled', 'after'],
  ]);

  async function watchBoth(readKind?: (memo: string | undefined) => string) {
    const pubsub = new MemoryPubSub();
    const { reads, read } = recordingReader(kinds);
    const hub = new WorkspaceWatchHub<string>({ pubsub, read, readKind });
    const sent: string[] = [];
    for (const id of kinds.keys()) hub.watch(id, aliceStore, (_event, json) => sent.push(json));
    await settle();
    return { pubsub, reads, sent };
  }

  it('reads groups of one subject apart when their memos give different kinds of read', async () => {
    const { pubsub, reads, sent } = await watchBoth((memo) => memo ?? 'after');
    // Both new, with nothing kept yet: one read of both.
    assert.deepEqual(reads, [['running', 'settled']]);
    assert.equal(sent.length, 2);
    reads.length = 0;
    await Promise.all([...kinds.keys()].map((id) => pubsub.publish(workspaceEventsChannel(id), 'build')));
    await settle();
    assert.deepEqual(reads.sort(), [['running'], ['settled']]);
    assert.equal(sent.length, 4);
  });

  it('reads the changed workspaces of one subject together when no kind is given', async () => {
    const { pubsub, reads } = await watchBoth();
    reads.length = 0;
    await Promise.all([...kinds.keys()].map((id) => pubsub.publish(workspaceEventsChannel(id), 'build')));
    await settle();
    assert.deepEqual(reads, [['running', 'settled']]);
  });

  it('joins a watcher again when the subscription failed, and sends it the state once it holds', async () => {
    const memory = new MemoryPubSub();
    let refusals = 1;
    // A database whose notifications are down for the first subscription only.
    const pubsub = {
      publish: (channel: string, payload: string) => memory.publish(channel, payload),
      subscribe: (channel: string, listener: Parameters<MemoryPubSub['subscribe']>[1]) =>
        refusals-- > 0 ? Promise.reject(new Error('the database is away')) : memory.subscribe(channel, listener),
      onResume: () => memory.onResume(),
      close: () => memory.close(),
    };
    const { read } = recordingReader(kinds);
    const hub = new WorkspaceWatchHub<string>({ pubsub, read });
    const sent: string[] = [];
    const stop = hub.watch('settled', aliceStore, (event, json) => sent.push(`${event} ${json}`));
    await settle();
    assert.deepEqual(sent, ['error {"message":"Could not watch the workspace."}']);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await settle();
    assert.deepEqual(sent.slice(1), ['data {"id":"settled"}'], 'the state, once subscribed');
    await memory.publish(workspaceEventsChannel('settled'), 'build');
    await settle();
    assert.equal(sent.length, 3, 'and each change after');
    stop();
  });

  it('reads a watcher again after a read failed, without waiting for a change', async () => {
    let failures = 1;
    const read: WatchedWorkspaceReader<string> = async (_store, ids) => {
      if (failures-- > 0) throw new Error('the database is away');
      return { answers: new Map(ids.map((id) => [id, { id } as unknown as Workspace])), refused: new Set(), memos: new Map() };
    };
    const hub = new WorkspaceWatchHub<string>({ pubsub: new MemoryPubSub(), read });
    const sent: string[] = [];
    const stop = hub.watch('settled', aliceStore, (event, json) => sent.push(`${event} ${json}`));
    await settle();
    assert.deepEqual(sent, ['error {"message":"Could not read the workspace."}']);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await settle();
    assert.deepEqual(sent.slice(1), ['data {"id":"settled"}']);
    stop();
  });
});
