import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Workspace, WorkspaceAppStatus } from '../../src/sdk/wire/index.js';
import { rawRequest } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { createEchoTemplate } from '../helpers/echo-template.js';

const AGENT_TOKEN = 'agent-token-of-the-extras-test';
const SSH_KEYGEN = '/usr/bin/ssh-keygen';

/** A template whose one agent has two apps, `web` and `ai`. */
function echoWithApps(token: string): string {
  const agent = {
    name: 'main',
    auth_token: token,
    apps: [
      { slug: 'web', display_name: 'Web', url: 'http://localhost:8080' },
      { slug: 'ai', display_name: 'AI', url: 'http://localhost:9090' },
    ],
  };
  return JSON.stringify({ apply: { resources: [{ name: 'box', type: 'echo', agents: [agent] }] } });
}

/** Alice's workspace with the agent of `AGENT_TOKEN`, its first build finished. */
async function workspaceWithAgent(owner: CoveClient, alice: CoveClient): Promise<Workspace> {
  const { template } = await createEchoTemplate(owner, 'with-apps', echoWithApps(AGENT_TOKEN));
  const workspace = await alice.createWorkspace('me', { name: 'dev', template_id: template.id });
  await alice.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
  return alice.workspace(workspace.id);
}

describe('agent extras: git SSH keys, app statuses, external auth, reinit', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let bob: CoveClient;
  let workspace: Workspace;
  const asAgent = (method: string, path: string, body?: unknown) =>
    rawRequest(test.url, method, path, {
      headers: { 'Service-Session-Token': AGENT_TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const asUser = (client: CoveClient, method: string, path: string) =>
    rawRequest(test.url, method, path, { headers: { 'Service-Session-Token': client.token ?? '' } });

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    bob = await createMember(test, 'bob');
    workspace = await workspaceWithAgent(owner, alice);
  });
  after(async () => test.close());

  it('gives each user an ed25519 key on first use, regenerates it, and hands the pair to the owner’s agents', async () => {
    const first = await asUser(alice, 'GET', '/users/me/gitsshkey');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body['user_id'], workspace.owner_id);
    assert.match(String(first.body['public_key']), /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5[A-Za-z0-9+/=]+\n$/);
    assert.equal('private_key' in first.body, false, 'users never see the private half');
    assert.deepEqual((await asUser(alice, 'GET', '/users/alice/gitsshkey')).body, first.body, 'the key is made once');

    const fromAgent = await asAgent('GET', '/workspaceagents/me/gitsshkey');
    assert.equal(fromAgent.status, 200);
    assert.equal(fromAgent.body['public_key'], first.body['public_key']);
    const privateKey = String(fromAgent.body['private_key']);
    assert.match(privateKey, /^-----BEGIN OPENSSH PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END OPENSSH PRIVATE KEY-----\n$/);
    if (existsSync(SSH_KEYGEN)) {
      const dir = mkdtempSync(join(tmpdir(), 'cove-gitsshkey-'));
      try {
        const file = join(dir, 'id_ed25519');
        writeFileSync(file, privateKey, { mode: 0o600 });
        const derived = execFileSync(SSH_KEYGEN, ['-y', '-f', file], { encoding: 'utf8' });
        assert.equal(derived.trim(), String(first.body['public_key']).trim(), 'ssh-keygen derives the public key from the private one');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }

    test.clock.advance(1_000);
    const regenerated = await asUser(alice, 'PUT', '/users/me/gitsshkey');
    assert.equal(regenerated.status, 200);
    assert.notEqual(regenerated.body['public_key'], first.body['public_key']);
    assert.equal(regenerated.body['created_at'], first.body['created_at']);
    assert.notEqual(regenerated.body['updated_at'], first.body['updated_at']);
    assert.equal(
      (await asAgent('GET', '/workspaceagents/me/gitsshkey')).body['public_key'],
      regenerated.body['public_key'],
      'the agent gets the new key',
    );
  });

  it('lets others read or regenerate a user’s key only as RBAC allows', async () => {
    assert.equal((await asUser(bob, 'GET', '/users/alice/gitsshkey')).status, 404, 'a member cannot see another member’s key');
    assert.equal((await asUser(bob, 'PUT', '/users/alice/gitsshkey')).status, 404);
    assert.equal((await asUser(owner, 'GET', '/users/alice/gitsshkey')).status, 200);
    const before = (await asUser(alice, 'GET', '/users/me/gitsshkey')).body['public_key'];
    assert.equal((await asUser(owner, 'PUT', '/users/alice/gitsshkey')).status, 200);
    assert.notEqual((await asUser(alice, 'GET', '/users/me/gitsshkey')).body['public_key'], before);
    assert.equal((await rawRequest(test.url, 'GET', '/users/alice/gitsshkey')).status, 401);
    assert.equal((await asUser(alice, 'GET', '/workspaceagents/me/gitsshkey')).status, 401, 'a user session is not an agent token');
  });

  it('stores app statuses, checks them, and shows them on apps and the workspace', async () => {
    assert.equal(workspace.latest_app_status, null, 'no status before the agent reports one');
    const unknown = await asAgent('PATCH', '/workspaceagents/me/app-status', { app_slug: 'nope', state: 'working', message: 'x' });
    assert.equal(unknown.status, 400);
    assert.match(String(unknown.body['detail']), /"nope"/);
    const badState = await asAgent('PATCH', '/workspaceagents/me/app-status', { app_slug: 'web', state: 'sleeping' });
    assert.equal(badState.status, 400);
    assert.equal(badState.body['message'], 'Invalid state provided.');
    const tooLong = await asAgent('PATCH', '/workspaceagents/me/app-status', { app_slug: 'web', state: 'idle', message: 'x'.repeat(161) });
    assert.equal(tooLong.status, 400);
    assert.equal(tooLong.body['message'], 'Message is too long.');
    assert.equal(
      (await asAgent('PATCH', '/workspaceagents/me/app-status', { app_slug: 'web', state: 'idle', message: 'y'.repeat(160) })).status,
      200,
    );

    test.clock.advance(1_000);
    const working = await asAgent('PATCH', '/workspaceagents/me/app-status', {
      app_slug: 'ai',
      state: 'working',
      message: 'Reading\nthe code',
      uri: 'file:///home/alice/README.md',
      icon: 'ignored',
      needs_user_attention: true,
    });
    assert.equal(working.status, 200, JSON.stringify(working.body));
    test.clock.advance(1_000);
    assert.equal(
      (await asAgent('PATCH', '/workspaceagents/me/app-status', { app_slug: 'ai', state: 'complete', message: 'Done' })).status,
      200,
    );

    const seen = await alice.workspace(workspace.id);
    const latest = seen.latest_app_status as WorkspaceAppStatus | undefined;
    assert.equal(latest?.state, 'complete');
    assert.equal(latest?.message, 'Done');
    const agent = seen.latest_build.resources.flatMap((r) => r.agents)[0];
    assert.ok(agent);
    assert.equal(latest?.agent_id, agent.id);
    assert.equal(latest?.workspace_id, workspace.id);
    const ai = agent.apps.find((app) => app.slug === 'ai');
    const web = agent.apps.find((app) => app.slug === 'web');
    assert.equal(latest?.app_id, ai?.id);
    assert.deepEqual(
      ai?.statuses.map((s) => [s.state, s.message]),
      [
        ['complete', 'Done'],
        ['working', 'Readingthe code'],
      ],
      'newest first, control characters stripped',
    );
    assert.equal(ai?.statuses[1]?.uri, 'file:///home/alice/README.md');
    assert.equal(ai?.statuses[1]?.needs_user_attention, false, 'deprecated and ignored');
    assert.deepEqual(
      web?.statuses.map((s) => s.state),
      ['idle'],
    );
    const direct = await alice.workspaceAgent(agent.id);
    assert.deepEqual(
      direct.apps.find((app) => app.slug === 'ai')?.statuses.map((s) => s.state),
      ['complete', 'working'],
    );
  });

  it('publishes the workspace event when an app status arrives', async () => {
    const controller = new AbortController();
    const response = await fetch(`${test.url}/api/v2/workspaces/${workspace.id}/watch`, {
      headers: { 'Service-Session-Token': alice.token ?? '' },
      signal: controller.signal,
    });
    assert.equal(response.status, 200);
    const reader = response.body?.getReader();
    assert.ok(reader);
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) assert.fail(`stream ended before ${pattern}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    try {
      await readUntil(/event: data/);
      text = '';
      test.clock.advance(1_000);
      assert.equal(
        (await asAgent('PATCH', '/workspaceagents/me/app-status', { app_slug: 'web', state: 'failure', message: 'Crashed' })).status,
        200,
      );
      await readUntil(/"message":"Crashed"/);
    } finally {
      controller.abort();
    }
  });

  it('answers external auth as the reference does when no provider matches', async () => {
    const byMatch = await asAgent('GET', '/workspaceagents/me/external-auth?match=https%3A%2F%2Fgithub.com%2Fcove%2Fcove.git');
    assert.equal(byMatch.status, 404);
    assert.match(String(byMatch.body['message']), /https:\/\/github\.com\/cove\/cove\.git/);
    const byId = await asAgent('GET', '/workspaceagents/me/external-auth?id=github&listen=true');
    assert.equal(byId.status, 404, 'listen does not wait for a provider that cannot exist');
    assert.match(String(byId.body['message']), /"github"/);
    assert.equal((await asAgent('GET', '/workspaceagents/me/external-auth')).status, 400);
    assert.equal((await asAgent('GET', '/workspaceagents/me/external-auth?match=x&id=y')).status, 400);
    const legacy = await asAgent('GET', '/workspaceagents/me/gitauth?url=https%3A%2F%2Fgitlab.com%2Fx.git');
    assert.equal(legacy.status, 404, 'the removed name answers as external-auth does');
    assert.match(String(legacy.body['message']), /gitlab\.com/);
    assert.equal((await asUser(alice, 'GET', '/workspaceagents/me/external-auth?id=github')).status, 401);
  });

  it('keeps the reinit stream open with pings only, until the agent leaves', async () => {
    const controller = new AbortController();
    const response = await fetch(`${test.url}/api/v2/workspaceagents/me/reinit`, {
      headers: { 'Service-Session-Token': AGENT_TOKEN },
      signal: controller.signal,
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = response.body?.getReader();
    assert.ok(reader);
    try {
      const { value } = await reader.read();
      assert.equal(new TextDecoder().decode(value), 'event: ping\ndata: \n\n');
      const next = await Promise.race([
        reader.read().then(() => 'event'),
        new Promise((resolve) => setTimeout(() => resolve('quiet'), 300)),
      ]);
      assert.equal(next, 'quiet', 'no reinitialization event without prebuilds');
    } finally {
      controller.abort();
    }
    assert.equal((await asUser(alice, 'GET', '/workspaceagents/me/reinit')).status, 401);
  });
});
