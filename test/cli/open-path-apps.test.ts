import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { CliUser } from '../helpers/run-cli.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

// `cove open` steers people to subdomain apps: path apps run on the deployment's own origin and
// open only for their workspace's owner, so with a wildcard access URL every app is given by its
// subdomain, and without one the CLI says who cannot open the path it prints.

const APPS = [
  { slug: 'mine', display_name: 'Mine', url: 'http://localhost:8080', share: 'owner' },
  { slug: 'team', display_name: 'Team', url: 'http://localhost:8081', share: 'authenticated' },
  { slug: 'sub', display_name: 'Sub', url: 'http://localhost:8082', share: 'owner', subdomain: true },
  { slug: 'docs', display_name: 'Docs', url: 'https://docs.example.com', external: true },
];

/** A daemon with alice's workspace `dev` whose agent `main` has the apps above (no agent process needed). */
async function deployment(flags: Record<string, string>): Promise<{ test: TestDaemon; owner: CoveClient; alice: CoveClient }> {
  const test = await startTestDaemon({ flags: { provisionerDaemons: '1', ...flags } });
  const owner = await createOwner(test);
  const alice = await createMember(test, 'alice');
  const echo = { apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', auth_token: 'open-token', apps: APPS }] }] } };
  const { template } = await createEchoTemplate(owner, 'apps', echo);
  const workspace = await alice.createWorkspace('me', { name: 'dev', template_id: template.id });
  await alice.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
  return { test, owner, alice };
}

const as = (test: TestDaemon, client: CoveClient) => new CliUser({ COVE_URL: test.url, COVE_SESSION_TOKEN: client.token ?? '' });

describe('cove open with a wildcard access URL', () => {
  let d: Awaited<ReturnType<typeof deployment>>;
  before(async () => {
    d = await deployment({ wildcardAccessUrl: '*.apps.test' });
  });
  after(() => d?.test.close());

  it('gives every proxied app by its subdomain, and says nothing more', async () => {
    const port = new URL(d.test.url).port;
    const alice = as(d.test, d.alice);
    for (const slug of ['mine', 'team', 'sub']) {
      const open = await alice.run('open', 'dev', slug);
      assert.equal(open.code, 0, open.stderr);
      assert.equal(open.stdout, `http://${slug}--main--dev--alice.apps.test:${port}/\n`);
      assert.equal(open.stderr, '');
    }
    assert.equal((await alice.run('open', 'dev', 'docs')).stdout, 'https://docs.example.com\n');
    // The site owner, who may not open alice's path apps, is given the subdomain too.
    const owner = await as(d.test, d.owner).run('open', 'alice/dev', 'mine', '-o', 'json');
    assert.deepEqual(JSON.parse(owner.stdout), { url: `http://mine--main--dev--alice.apps.test:${port}/` });
    assert.equal(owner.stderr, '');
  });
});

describe('cove open without a wildcard access URL', () => {
  let d: Awaited<ReturnType<typeof deployment>>;
  before(async () => {
    d = await deployment({});
  });
  after(() => d?.test.close());

  it('gives the path, and says when others cannot open it there', async () => {
    const alice = as(d.test, d.alice);
    const mine = await alice.run('open', 'dev', 'mine');
    assert.equal(mine.stdout, `${d.test.url}/@alice/dev.main/apps/mine/\n`);
    assert.equal(mine.stderr, '', 'nothing to say about an app only its owner opens');

    const team = await alice.run('open', 'dev', 'team');
    assert.equal(team.code, 0);
    assert.equal(team.stdout, `${d.test.url}/@alice/dev.main/apps/team/\n`);
    assert.match(team.stderr, /app "team" is shared \(authenticated\), but others cannot open it here/);
    assert.match(team.stderr, /--wildcard-access-url/);

    const owner = await as(d.test, d.owner).run('open', 'alice/dev', 'mine', '-o', 'json');
    assert.deepEqual(JSON.parse(owner.stdout), { url: `${d.test.url}/@alice/dev.main/apps/mine/` });
    assert.match(owner.stderr, /this workspace is alice's, and path apps open only for their workspace's owner/);
  });
});
