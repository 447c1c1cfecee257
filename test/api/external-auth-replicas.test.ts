import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger, startDaemon, type Daemon } from '../../src/daemon/index.js';
import { resolveOptions } from '../../src/domain/deployment-options.js';
import { ManualClock } from '../../src/lib/clock.js';
import { NEEDS_POSTGRES } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { rawRequest } from '../helpers/expect-api-error.js';
import { startOAuth2Server, type TestOAuth2Server } from '../helpers/oauth2-server.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const AGENT_TOKEN = 'agent-token-of-the-external-auth-replicas-test';

describe('external auth tokens refreshed once across replicas sharing one PostgreSQL database', { skip: NEEDS_POSTGRES }, () => {
  let oauth: TestOAuth2Server;
  let first: TestDaemon;
  let second: Daemon;
  let secondClock: ManualClock;
  let secondDir: string;

  const askToken = (url: string) =>
    rawRequest(url, 'GET', '/workspaceagents/me/external-auth?id=git', { headers: { 'Service-Session-Token': AGENT_TOKEN } });

  before(async () => {
    oauth = await startOAuth2Server();
    const env = oauth.env(0, { ID: 'git' });
    first = await startTestDaemon({ database: 'postgres', flags: { provisionerDaemons: '1' }, env });
    // The provider's tokens expire by the real time: both replicas' clocks start there.
    first.clock.set(new Date());
    const target = first.database.target;
    assert.equal(target.kind, 'postgres');
    secondDir = mkdtempSync(join(tmpdir(), 'cove-external-auth-replica-'));
    secondClock = new ManualClock(first.clock.now());
    second = await startDaemon(
      resolveOptions({
        flags: { httpAddress: '127.0.0.1:0', dataDir: secondDir, provisionerDaemons: '0', postgresUrl: target.url },
        env,
      }),
      { logger: silentLogger(), clock: secondClock },
    );
    await oauth.allowRedirect(`${first.url}/external-auth/git/callback`);
    const owner = await createOwner(first);
    const alice = await createMember(first, 'alice');
    const { template } = await createEchoTemplate(owner, 'box', {
      apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', auth_token: AGENT_TOKEN }] }] },
    });
    const workspace = await alice.createWorkspace('me', { name: 'dev', template_id: template.id });
    await alice.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);

    // Alice links on the first replica, by the callback flow.
    const headers = { 'Service-Session-Token': alice.token ?? '' };
    const started = await fetch(`${first.url}/external-auth/git/callback`, { headers, redirect: 'manual' });
    const back = await oauth.completeLogin(started.headers.get('location') ?? assert.fail('no redirect to the provider'), 'alice-gh');
    const done = await fetch(back, { headers, redirect: 'manual' });
    assert.equal(done.status, 307, await done.text());
  });
  after(async () => {
    await second?.close();
    await first?.close();
    await oauth?.close();
    if (secondDir) rmSync(secondDir, { recursive: true, force: true });
  });

  it('gives both replicas, asked at once for an expired token, the one token of a single refresh', async () => {
    const linked = await askToken(first.url);
    assert.equal(typeof linked.body['access_token'], 'string', JSON.stringify(linked.body));
    assert.equal((await askToken(second.url)).body['access_token'], linked.body['access_token']);
    const grants = oauth.refreshGrants();

    // The token expires (as an hour passing would make it).
    await first.daemon.store.db
      .updateTable('external_auth_links')
      .set({ oauth_expiry: new Date(first.clock.now().getTime() - 1000).toISOString() })
      .where('provider_id', '=', 'git')
      .execute();
    const answers = await Promise.all([askToken(first.url), askToken(second.url), askToken(first.url), askToken(second.url)]);
    for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const tokens = new Set(answers.map((answer) => answer.body['access_token']));
    assert.equal(tokens.size, 1, `one token for all: ${JSON.stringify([...tokens])}`);
    assert.notEqual([...tokens][0], linked.body['access_token']);
    assert.equal(oauth.refreshGrants(), grants + 1, 'exactly one refresh grant');
    assert.ok(await oauth.isLiveAccessToken(String([...tokens][0])));
  });
});
