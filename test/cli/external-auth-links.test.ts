import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoveClient } from '../../src/sdk/client.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { startOAuth2Server, type TestOAuth2Server } from '../helpers/oauth2-server.js';
import { CliTerminal } from '../helpers/cli-terminal.js';
import { CliUser } from '../helpers/run-cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

interface ListedRow {
  id: string;
  type: string;
  linked: boolean;
  account: string;
  expires: string | null;
  status: string;
}

/** `cove external-auth list|link|unlink` and `cove create` of a template that requires a provider, against a real OAuth2 server. */
describe('cove external-auth list, link and unlink, and create with required providers', () => {
  let oauth: TestOAuth2Server;
  let test: TestDaemon;
  const dev = new CliUser();
  const AGENT_TOKEN = 'agent-token-of-the-links-test';
  /** cove as git runs it for GIT_ASKPASS inside the workspace: the prompt alone, GIT_PREFIX set. */
  const askpass = (prompt: string) => new CliUser({ GIT_PREFIX: '', COVE_AGENT_URL: test.url, COVE_AGENT_TOKEN: AGENT_TOKEN }).run(prompt);
  const listed = async () => {
    const result = await dev.run('external-auth', 'list', '-o', 'json');
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as ListedRow[];
  };

  before(async () => {
    oauth = await startOAuth2Server();
    test = await startTestDaemon({
      flags: { provisionerDaemons: '1' },
      env: {
        ...oauth.env(0, { ID: 'git', DISPLAY_NAME: 'Test Git', DEVICE_FLOW: 'true' }),
        ...oauth.env(1, { ID: 'other-git', DISPLAY_NAME: 'Other Git', REGEX: '^https://other\\.example(/|$)', DEVICE_FLOW: 'false' }),
      },
    });
    // The provider stamps its tokens' expiry by the real time: the daemon's clock starts there.
    test.clock.set(new Date());
    await oauth.allowRedirect(`${test.url}/external-auth/other-git/callback`);
    await dev.signUpFirstUser(test.url, { email: 'dev@example.com', username: 'dev' });
  });
  after(async () => {
    await test?.close();
    await oauth?.close();
  });

  it('refuses to create a workspace whose template requires an unlinked provider, naming it and how to link', async () => {
    const owner = new CoveClient({ url: test.url, token: dev.savedToken() });
    await createEchoTemplate(owner, 'needs-git', {
      parse: { external_auth: [{ id: 'git' }, { id: 'other-git', optional: true }] },
      apply: { resources: [{ name: 'box', type: 'echo' }] },
    });
    const create = await dev.run('create', 'ws', '--template', 'needs-git', '-y');
    assert.equal(create.code, 1);
    assert.match(
      create.stderr,
      new RegExp(`You must link your Test Git account to create a workspace from this template: ${test.url}/external-auth/git`),
    );
    assert.match(create.stderr, /Other Git account \(optional\)/);
    assert.match(create.stderr, /error: Link git first/);
    assert.match(create.stderr, /hint: cove external-auth link git\n/);
    assert.doesNotMatch(create.stderr, /link other-git/, 'an optional provider never blocks');
    assert.deepEqual((await owner.workspaces()).count, 0);
    // A workspace of a template that requires nothing, for the askpass cases below.
    const plain = await createEchoTemplate(owner, 'with-agent', {
      apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', auth_token: AGENT_TOKEN }] }] },
    });
    const workspace = await owner.createWorkspace('me', { name: 'dev', template_id: plain.template.id });
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
  });

  it("as git's askpass: fails at once with the link URL when not linked (no terminal), and quietly for a remote no provider matches", async () => {
    const unlinked = await askpass("Username for 'https://other.example': ");
    assert.equal(unlinked.code, 1);
    assert.equal(unlinked.stdout, '');
    assert.equal(unlinked.stderr, `You must link your other-git account to use this repository: ${test.url}/external-auth/other-git\n`);
    const unknown = await askpass("Username for 'https://elsewhere.example': ");
    assert.deepEqual(unknown, { code: 1, stdout: '', stderr: '' });
  });

  it('lists the providers, none linked', async () => {
    assert.deepEqual(
      (await listed()).map((row) => [row.id, row.linked, row.status]),
      [
        ['git', false, 'not linked'],
        ['other-git', false, 'not linked'],
      ],
    );
    const table = await dev.run('external-auth', 'list', '-c', 'id,status');
    assert.match(table.stdout, /^ID\s+STATUS\ngit\s+not linked\nother-git\s+not linked\n$/);
  });

  it('links with the device flow: shows the code, polls until it is entered', async () => {
    const running = dev.start('external-auth', 'link', 'git', '--timeout', '1m');
    const code = await eventually(() => {
      const match = /open (\S+) and enter the code (\S+)/.exec(running.output().stderr);
      assert.ok(match, running.output().stderr);
      return { uri: match[1], userCode: match[2] ?? '' };
    });
    assert.equal(code.uri, `${oauth.issuer}/device`);
    await oauth.completeDevice(code.userCode, 'octocat');
    const result = await running.done;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'Linked your Test Git account (octocat).\n');
    const [git] = await listed();
    assert.deepEqual([git?.linked, git?.account, git?.status], [true, 'octocat', 'ok']);
    assert.ok(git?.expires && Date.parse(git.expires) > Date.now(), 'shows when the token expires');
  });

  it("links in the browser: prints the deployment's page and waits until the link is made", async () => {
    const running = dev.start('external-auth', 'link', 'other-git', '--timeout', '1m');
    await eventually(() => assert.match(running.output().stderr, new RegExp(`open ${test.url}/external-auth/other-git\n`)));
    // The browser at that page: the deployment sends it to the provider, and the provider back.
    const headers = { 'Service-Session-Token': dev.savedToken() };
    const started = await fetch(`${test.url}/external-auth/other-git/callback`, { headers, redirect: 'manual' });
    const back = await oauth.completeLogin(started.headers.get('location') ?? '', 'hubot');
    assert.equal((await fetch(back, { headers, redirect: 'manual' })).status, 307);
    const result = await running.done;
    assert.equal(result.code, 0, JSON.stringify(result));
    assert.match(result.stdout, /^Linked your Other Git account/);

    // Now git gets the token: as the username, and again as the password (a generic provider's password is empty).
    const username = await askpass("Username for 'https://other.example': ");
    assert.equal(username.code, 0, username.stderr);
    assert.ok(await oauth.isLiveAccessToken(username.stdout.trim()));
    const password = await askpass(`Password for 'https://${username.stdout.trim()}@other.example': `);
    assert.equal(password.stdout, username.stdout);
  });

  it('times out when nobody links, and refuses an unknown provider', async () => {
    const late = await dev.run('external-auth', 'link', 'other-git', '--timeout', '1s');
    assert.equal(late.code, 1);
    assert.match(late.stderr, /error: The other-git account was not linked in time\./);
    const unknown = await dev.run('external-auth', 'link', 'nope');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No external auth provider "nope" is configured.*\nhint: Its providers are: git, other-git\./);
  });

  it('unlinks, saying the provider revoked the token, and the link is gone', async () => {
    const unlink = await dev.run('external-auth', 'unlink', 'git');
    assert.equal(unlink.code, 0, unlink.stderr);
    assert.equal(unlink.stdout, 'Unlinked git: the provider revoked its token.\n');
    assert.deepEqual(
      (await listed()).map((row) => [row.id, row.linked]),
      [
        ['git', false],
        ['other-git', true],
      ],
    );
    const json = await dev.run('external-auth', 'unlink', 'other-git', '-o', 'json');
    assert.equal((JSON.parse(json.stdout) as { token_revoked: boolean }).token_revoked, true);
    const again = await dev.run('external-auth', 'unlink', 'git');
    assert.equal(again.code, 1);
  });

  it("as git's askpass on a terminal: says where to link, waits, and answers once the account is linked", async () => {
    const terminal = new CliTerminal(dev.configDir, ["Username for 'https://other.example': "], {
      GIT_PREFIX: '',
      COVE_AGENT_URL: test.url,
      COVE_AGENT_TOKEN: AGENT_TOKEN,
    });
    await terminal.expect(new RegExp(`You must link your other-git account to use this repository: ${test.url}/external-auth/other-git`));
    await terminal.expect(/Waiting until you have linked it/);
    const headers = { 'Service-Session-Token': dev.savedToken() };
    const started = await fetch(`${test.url}/external-auth/other-git/callback`, { headers, redirect: 'manual' });
    const back = await oauth.completeLogin(started.headers.get('location') ?? '', 'hubot');
    assert.equal((await fetch(back, { headers, redirect: 'manual' })).status, 307);
    await terminal.expect(/Linked: git goes on\.\r?\n/);
    assert.equal(await terminal.exited, 0);
    const printed = terminal.output.trim().split(/\r?\n/).at(-1) ?? '';
    assert.ok(await oauth.isLiveAccessToken(printed.trim()), `the username git asked for is the live token: ${printed}`);
  });
});
