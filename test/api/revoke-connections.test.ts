import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import type { AgentHandle } from '../../src/agent/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { eventually } from '../helpers/eventually.js';
import { closedFor, cutOpenSockets, openSocket, openTerminal, runs, WITHIN_MS, type OpenSocket } from '../helpers/live-sockets.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

const TOKEN = 'agent-token-for-revoked-sessions';

describe('ending access ends the connections it opened', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let agent: AgentHandle;
  let agentId: string;
  let workspaceId: string;
  let home: string;
  /** Alice's own terminal and watch: another user's connections, which stay open throughout. */
  let bystander: { terminal: OpenSocket; watch: OpenSocket };

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    home = await mkdtemp(join(tmpdir(), 'cove-revoke-'));
    ({ agent, agentId, workspaceId } = await startAgentWorkspace({
      url: test.url,
      owner,
      member: alice,
      token: TOKEN,
      home,
      templateName: 'revoke',
    }));
    bystander = await openBystander();
  });
  after(async () => {
    cutOpenSockets();
    await agent?.stop();
    await test?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  async function openBystander(): Promise<{ terminal: OpenSocket; watch: OpenSocket }> {
    return {
      terminal: await openTerminal(test.url, agentId, alice.token ?? ''),
      watch: await openSocket(test.url, `/workspaces/${workspaceId}/watch-ws`, alice.token ?? ''),
    };
  }

  /**
   * A user who may enter alice's workspace (a site owner), with a terminal into it and a watch of
   * it open; after `endAccess`, both close within 1 s while alice's stay open and working.
   */
  async function attack(username: string, endAccess: (victim: CoveClient) => Promise<unknown>): Promise<void> {
    const victim = await createMember(test, username);
    await owner.setSiteRoles(username, ['owner']);
    const terminal = await openTerminal(test.url, agentId, victim.token ?? '');
    const watch = await openSocket(test.url, `/workspaces/${workspaceId}/watch-ws`, victim.token ?? '');
    await eventually(() => assert.match(watch.output(), /"type":"data"/));
    await endAccess(victim);
    const answeredAt = Date.now();
    await Promise.all([closedFor(terminal, answeredAt, 'the terminal'), closedFor(watch, answeredAt, 'the watch')]);
    await runs(bystander.terminal);
    assert.equal(bystander.watch.socket.readyState, WebSocket.OPEN, "alice's watch stays open");
  }

  it('deleting the token', async () => {
    await attack('token-deleted', (victim) => victim.deleteApiKey((victim.token ?? '').split('-')[0] ?? ''));
  });

  it('signing out', async () => {
    await attack('signed-out', (victim) => victim.logout());
  });

  it('a password change by an administrator', async () => {
    await attack('password-changed', () => owner.changePassword('password-changed', { password: `${STRONG_PASSWORD}-new` }));
  });

  it("suspension (of alice: owners cannot be suspended), and the owner's terminal into her workspace stays", async () => {
    const ownersTerminal = await openTerminal(test.url, agentId, owner.token ?? '');
    await owner.suspendUser('alice');
    const answeredAt = Date.now();
    await Promise.all([
      closedFor(bystander.terminal, answeredAt, "alice's terminal"),
      closedFor(bystander.watch, answeredAt, "alice's watch"),
    ]);
    await runs(ownersTerminal);
    ownersTerminal.socket.close();
    await owner.activateUser('alice');
    bystander = await openBystander();
  });

  it('deletion', async () => {
    await attack('deleted', () => owner.deleteUser('deleted'));
  });

  it('removing the site role that gave access', async () => {
    await attack('demoted', () => owner.setSiteRoles('demoted', []));
  });

  it('a role change that keeps access keeps the connections', async () => {
    const victim = await createMember(test, 'kept');
    await owner.setSiteRoles('kept', ['owner']);
    const terminal = await openTerminal(test.url, agentId, victim.token ?? '');
    await owner.setSiteRoles('kept', ['owner', 'auditor']);
    // The re-check runs at once; a command after it still goes through.
    await runs(terminal);
    assert.equal(terminal.socket.readyState, WebSocket.OPEN);
    terminal.socket.close();
  });

  it('the server-sent watch and the build log follow end too', async () => {
    const victim = await createMember(test, 'followed');
    await owner.setSiteRoles('followed', ['owner']);
    const controller = new AbortController();
    let seen = 0;
    const watching = victim
      .watchWorkspace(workspaceId, () => seen++, controller.signal)
      .then(
        () => Date.now(),
        () => Date.now(),
      );
    // The build is over, so its log stream ends by itself: an agent's log follow stays open.
    const logs = await openSocket(test.url, `/workspaceagents/${agentId}/logs?follow=true`, victim.token ?? '');
    await eventually(() => assert.ok(seen > 0, 'the watch answered'));
    await owner.setSiteRoles('followed', []);
    const answeredAt = Date.now();
    const ended = await Promise.race([watching, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5_000).unref())]);
    // Ends it here if the daemon did not: a failing test must not hold the run open.
    controller.abort();
    assert.ok(ended, 'the server-sent watch is still open 5 s after access ended');
    assert.ok(ended - answeredAt <= WITHIN_MS, `the watch ended ${ended - answeredAt} ms after access ended`);
    await closedFor(logs, answeredAt, 'the agent log follow');
  });

  it('a provisioner daemon serving with a session stops serving what the session may no longer serve', async () => {
    const victim = await createMember(test, 'daemon-admin');
    await owner.setSiteRoles('daemon-admin', ['owner']);
    const { organization_id } = await owner.workspace(workspaceId);
    const daemon = await openSocket(
      test.url,
      `/organizations/${organization_id}/provisionerdaemons/serve?id=${randomUUID()}`,
      victim.token ?? '',
    );
    // Still a member of the organization, but no longer one who may serve all of it.
    await owner.setSiteRoles('daemon-admin', []);
    await closedFor(daemon, Date.now(), 'the provisioner daemon');
  });

  // Last: alice loses her own workspace.
  it("removing the organization membership that gave access ends the member's own terminal, not the owner's", async () => {
    const ownersTerminal = await openTerminal(test.url, agentId, owner.token ?? '');
    const { organization_id } = await owner.workspace(workspaceId);
    await owner.removeMember(organization_id, 'alice');
    const answeredAt = Date.now();
    await Promise.all([
      closedFor(bystander.terminal, answeredAt, "alice's terminal"),
      closedFor(bystander.watch, answeredAt, "alice's watch"),
    ]);
    await runs(ownersTerminal);
    ownersTerminal.socket.close();
  });
});
