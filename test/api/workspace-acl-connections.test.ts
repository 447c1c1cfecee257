import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import type { AgentHandle } from '../../src/agent/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { closedFor, cutOpenSockets, openSocket, openTerminal, runs, type OpenSocket } from '../helpers/live-sockets.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const TOKEN = 'agent-token-for-shared-workspaces';

for (const dialect of TEST_DIALECTS) {
  describe(`a shared user's connections end within 1 s of losing access (${dialect})`, () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let alice: CoveClient;
    let agent: AgentHandle;
    let agentId: string;
    let workspaceId: string;
    let home: string;
    let orgId: string;
    /** A TCP echo server beside the agent: what a forwarded port reaches. */
    let echo: Server;
    let echoPort: number;
    /** Alice's own terminal into her workspace, which stays open throughout. */
    let bystander: OpenSocket;

    before(async () => {
      test = await startTestDaemon({ database: dialect, flags: { provisionerDaemons: '1' } });
      owner = await createOwner(test);
      alice = await createMember(test, 'alice');
      orgId = test.daemon.identity.defaultOrganization.id;
      home = await mkdtemp(join(tmpdir(), 'cove-shared-'));
      ({ agent, agentId, workspaceId } = await startAgentWorkspace({
        url: test.url,
        owner,
        member: alice,
        token: TOKEN,
        home,
        templateName: 'shared',
      }));
      echo = createServer((socket) => socket.pipe(socket));
      await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
      const address = echo.address();
      assert.ok(address && typeof address === 'object');
      echoPort = address.port;
      bystander = await openTerminal(test.url, agentId, alice.token ?? '');
    });
    after(async () => {
      cutOpenSockets();
      await agent?.stop();
      echo?.close();
      await test?.close();
      if (home) await rm(home, { recursive: true, force: true });
    });

    async function idOf(client: CoveClient): Promise<string> {
      return (await client.user('me')).id;
    }

    /** A forwarded port through the relay; resolves once bytes went to the echo server and back. */
    async function openForward(token: string): Promise<OpenSocket> {
      const forward = await openSocket(test.url, `/workspaceagents/${agentId}/coordinate?port=${echoPort}`, token);
      const word = `ping-${randomUUID()}`;
      await eventually(() => assert.match(forward.output(), /"type":"ready"/), 5_000);
      forward.socket.send(Buffer.from(word));
      await eventually(() => assert.ok(forward.output().includes(word), forward.output()), 5_000);
      return forward;
    }

    /**
     * A user the workspace is shared with by `share` opens a terminal and a forwarded port; after
     * `revoke`, both close within 1 s, the user can no longer reach the workspace, and alice's own
     * terminal still works.
     */
    async function revoked(username: string, share: (userId: string) => Promise<unknown>, revoke: (userId: string) => Promise<unknown>) {
      const user = await createMember(test, username);
      const userId = await idOf(user);
      // Before the share the terminal is refused at the upgrade: the workspace is not theirs to see.
      await assert.rejects(openSocket(test.url, `/workspaceagents/${agentId}/pty?reconnect=${randomUUID()}`, user.token ?? ''), /404/);
      await share(userId);
      const terminal = await openTerminal(test.url, agentId, user.token ?? '');
      const forward = await openForward(user.token ?? '');
      await revoke(userId);
      const answeredAt = Date.now();
      await Promise.all([closedFor(terminal, answeredAt, 'the terminal'), closedFor(forward, answeredAt, 'the forwarded port')]);
      await expectApiError(user.workspace(workspaceId), 404);
      await runs(bystander);
      assert.equal(bystander.socket.readyState, WebSocket.OPEN, "alice's terminal stays open");
    }

    it('unsharing the user (PATCH with the empty role)', async () => {
      await revoked(
        'unshared',
        (id) => alice.updateWorkspaceAcl(workspaceId, { user_roles: { [id]: 'use' } }),
        (id) => alice.updateWorkspaceAcl(workspaceId, { user_roles: { [id]: '' } }),
      );
    });

    it('clearing every share (DELETE /acl)', async () => {
      await revoked(
        'cleared',
        (id) => alice.updateWorkspaceAcl(workspaceId, { user_roles: { [id]: 'admin' } }),
        () => alice.deleteWorkspaceAcl(workspaceId),
      );
    });

    it('taking the share away from the Everyone group', async () => {
      await revoked(
        'everyone',
        () => alice.updateWorkspaceAcl(workspaceId, { group_roles: { [orgId]: 'use' } }),
        () => alice.updateWorkspaceAcl(workspaceId, { group_roles: { [orgId]: '' } }),
      );
    });

    it('removing the user from the group it is shared with', async () => {
      const groupId = randomUUID();
      await test.daemon.store.db
        .insertInto('groups')
        .values({
          id: groupId,
          organization_id: orgId,
          name: 'sharers',
          display_name: '',
          avatar_url: '',
          quota_allowance: 0,
          source: 'user',
          created_at: new Date().toISOString(),
        })
        .execute();
      await revoked(
        'grouped',
        async (id) => {
          await test.daemon.store.db.insertInto('group_members').values({ group_id: groupId, user_id: id }).execute();
          await test.daemon.store.invalidateSessions({ userId: id });
          await alice.updateWorkspaceAcl(workspaceId, { group_roles: { [groupId]: 'use' } });
        },
        async (id) => {
          // What the groups routes do when a member is removed.
          await test.daemon.store.db.deleteFrom('group_members').where('user_id', '=', id).execute();
          await test.daemon.store.invalidateSessions({ userId: id });
        },
      );
      await alice.updateWorkspaceAcl(workspaceId, { group_roles: { [groupId]: '' } });
    });

    it("turning the organization's sharing off", async () => {
      await revoked(
        'switched-off',
        (id) => alice.updateWorkspaceAcl(workspaceId, { user_roles: { [id]: 'use' } }),
        () => owner.updateWorkspaceSharingSettings(orgId, { sharing_disabled: true }),
      );
      await owner.updateWorkspaceSharingSettings(orgId, { sharing_disabled: false });
    });
  });
}
