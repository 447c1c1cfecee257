import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Workspace } from '../../src/sdk/wire/index.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** What a list stream has sent, in order. */
interface ListStream {
  readonly messages: { readonly type: string; readonly workspace_id?: string; readonly data?: unknown }[];
  latest(id: string): Workspace | undefined;
  close(): Promise<void>;
}

/**
 * The dashboard's list of workspaces: its order (the requester's favorites, then running ones,
 * then owner and name), on either database, and the one stream that follows a page of it.
 */
describe('the workspace list page: order and one live stream', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  const made = new Map<string, Workspace>();
  const streams = new Set<ListStream>();

  const wsUrl = (query: string) => `${test.url.replace(/^http/, 'ws')}/api/v2/workspaces/watch-ws?${query}`;

  async function openStream(client: CoveClient, ids: readonly string[]): Promise<ListStream> {
    const socket = new WebSocket(wsUrl(`ids=${ids.join(',')}`), { headers: { 'Service-Session-Token': client.token ?? '' } });
    const messages: ListStream['messages'] = [];
    socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as ListStream['messages'][number]));
    await once(socket, 'open');
    const stream: ListStream = {
      messages,
      latest: (id) =>
        messages
          .filter((m) => m.type === 'data')
          .map((m) => m.data as Workspace)
          .filter((w) => w.id === id)
          .at(-1),
      async close() {
        streams.delete(stream);
        if (socket.readyState === socket.CLOSED) return;
        const closed = once(socket, 'close');
        socket.close();
        await closed;
      },
    };
    streams.add(stream);
    return stream;
  }

  /** The HTTP status an upgrade to the list stream is refused with. */
  function refusedUpgrade(client: CoveClient, query: string): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(wsUrl(query), { headers: { 'Service-Session-Token': client.token ?? '' } });
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.on('open', () => {
        socket.close();
        reject(new Error('the upgrade was accepted'));
      });
      socket.on('error', () => undefined);
    });
  }

  const id = (name: string) => made.get(name)?.id ?? '';

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    const { template } = await createEchoTemplate(owner, 'plain', {});
    for (const [client, name] of [
      [owner, 'zeta'],
      [owner, 'alpha'],
      [owner, 'Beta'],
      [owner, 'gamma'],
      [alice, 'aaa'],
      [alice, 'ccc'],
    ] as const) {
      const workspace = await client.createWorkspace('me', { name: name.toLowerCase(), template_id: template.id });
      await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
      made.set(name.toLowerCase(), workspace);
    }
    for (const name of ['zeta', 'beta', 'ccc']) {
      const stop = await owner.createWorkspaceBuild(id(name), { transition: 'stop' });
      await owner.followWorkspaceBuildLogs(stop.id, () => undefined);
    }
    await owner.favoriteWorkspace(id('zeta'));
    await owner.favoriteWorkspace(id('gamma'));
    await alice.favoriteWorkspace(id('ccc'));
  });
  after(async () => {
    for (const stream of [...streams]) await stream.close();
    await test.close();
  });

  it("lists the requester's favorites first, then by owner and name, a page at a time", async () => {
    const all = await owner.workspaces();
    // The owner's favorites first; then everyone's by owner and name (alice's favorite is hers
    // alone: for the owner it is one more workspace).
    const rest = ['alpha', 'beta', 'aaa', 'ccc']
      .map((name) => made.get(name)!)
      .sort((a, b) => (a.owner_id === b.owner_id ? (a.name < b.name ? -1 : 1) : a.owner_id < b.owner_id ? -1 : 1))
      .map((w) => w.name);
    const order = ['gamma', 'zeta', ...rest];
    assert.deepEqual(
      all.workspaces.map((w) => w.name),
      order,
    );
    assert.deepEqual(
      (await alice.workspaces()).workspaces.map((w) => w.name),
      ['ccc', 'aaa'],
      "alice's favorite comes first for her",
    );
    // Pages are slices of the same order, within the favorites, across their end, and past it.
    for (const [offset, limit] of [
      [0, 1],
      [1, 2],
      [2, 2],
      [3, 2],
      [5, 4],
      [6, 2],
    ] as const) {
      const page = await owner.workspaces({ limit, offset });
      assert.equal(page.count, 6);
      assert.deepEqual(
        page.workspaces.map((w) => w.name),
        order.slice(offset, offset + limit),
        `offset ${offset}, limit ${limit}`,
      );
    }
    // A star is its owner's: another who reads the workspace sees none (the reference's rule).
    assert.equal(all.workspaces.find((w) => w.name === 'ccc')?.favorite, false, "alice's star is not the owner's");
    assert.equal((await owner.workspace(id('ccc'))).favorite, false, 'nor when the owner reads the workspace alone');
    assert.equal((await alice.workspace(id('ccc'))).favorite, true, 'alice sees her own star');
    assert.equal(all.workspaces.find((w) => w.name === 'zeta')?.favorite, true);
    const running = await owner.workspaces({ q: 'owner:me status:running' });
    assert.deepEqual(
      running.workspaces.map((w) => w.name),
      ['gamma', 'alpha'],
    );
  });

  it('follows every workspace of a page over one WebSocket', async () => {
    const ids = [id('alpha'), id('aaa')];
    const stream = await openStream(owner, ids);
    await eventually(() =>
      assert.ok(
        ids.every((each) => stream.latest(each)),
        'each workspace is sent on connect',
      ),
    );
    const stop = await owner.createWorkspaceBuild(id('alpha'), { transition: 'stop' });
    await owner.followWorkspaceBuildLogs(stop.id, () => undefined);
    await eventually(() => assert.equal(stream.latest(id('alpha'))?.latest_build.status, 'stopped'));
    assert.equal(stream.latest(id('aaa'))?.latest_build.status, 'running', 'the other workspace is unchanged');
    await stream.close();
  });

  it('refuses ids the caller may not read, malformed ones, and too many', async () => {
    assert.equal(await refusedUpgrade(alice, `ids=${id('aaa')},${id('alpha')}`), 404, "alice may not read the owner's workspace");
    assert.equal(await refusedUpgrade(owner, `ids=${id('aaa')},not-an-id`), 400);
    const tooMany = Array.from({ length: 101 }, (_, n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`);
    assert.equal(await refusedUpgrade(owner, `ids=${tooMany.join(',')}`), 400);
    assert.equal(await refusedUpgrade(owner, 'ids='), 400);
    const plain = await fetch(`${test.url}/api/v2/workspaces/watch-ws?ids=${id('aaa')}`, {
      headers: { 'Service-Session-Token': owner.token ?? '' },
    });
    assert.equal(plain.status, 400, 'a plain request is told to upgrade');
    const body = (await plain.json()) as { message: string };
    assert.equal(body.message, 'This endpoint is a WebSocket.');
    // Her own workspaces she may follow.
    const mine = await openStream(alice, [id('aaa'), id('ccc')]);
    await eventually(() => assert.ok(mine.latest(id('aaa')) && mine.latest(id('ccc'))));
    await mine.close();
  });

  it('refuses the session cookie from another origin, and closes when the session ends', async () => {
    const foreign = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(wsUrl(`ids=${id('aaa')}`), {
        headers: { cookie: `service_session_token=${alice.token ?? ''}`, origin: 'https://attacker.example' },
      });
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.on('open', () => {
        socket.close();
        reject(new Error('the upgrade was accepted'));
      });
      socket.on('error', () => undefined);
    });
    assert.equal(foreign, 403);

    const bob = await createMember(test, 'bob');
    const socket = new WebSocket(wsUrl(`ids=${id('aaa')}`), { headers: { 'Service-Session-Token': alice.token ?? '' } });
    const opened = once(socket, 'open');
    const bobs = new WebSocket(wsUrl(`ids=${id('aaa')}`), { headers: { 'Service-Session-Token': bob.token ?? '' } });
    const bobRefused = new Promise<number>((resolve) =>
      bobs.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0)),
    );
    bobs.on('error', () => undefined);
    assert.equal(await bobRefused, 404, "bob may not read alice's workspace");
    await opened;
    const closed = once(socket, 'close') as Promise<[number, Buffer]>;
    await alice.logout();
    const [code] = await closed;
    assert.equal(code, 4401, 'signing out ends the stream');
  });
});
