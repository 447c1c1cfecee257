import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { CliUser } from '../helpers/run-cli.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const AGENT_TOKEN = 'agent-token-of-the-external-auth-test';

/** `cove external-auth access-token`, run as a workspace's agent against a real daemon. */
describe('cove external-auth access-token', () => {
  let test: TestDaemon;
  let insideWorkspace: CliUser;

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    const owner = await createOwner(test);
    const agent = { name: 'main', auth_token: AGENT_TOKEN };
    const { template } = await createEchoTemplate(
      owner,
      'with-agent',
      JSON.stringify({ apply: { resources: [{ name: 'box', type: 'echo', agents: [agent] }] } }),
    );
    const workspace = await owner.createWorkspace('me', { name: 'dev', template_id: template.id });
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    insideWorkspace = new CliUser({ COVE_AGENT_URL: test.url, COVE_AGENT_TOKEN: AGENT_TOKEN });
  });
  after(async () => test.close());

  it('says that no provider has that id, with the deployment’s detail and a hint, and exits 1', async () => {
    const result = await insideWorkspace.run('external-auth', 'access-token', 'github');
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '', 'a script capturing the token gets nothing');
    const lines = result.stderr.split('\n');
    assert.equal(lines[0], 'error: No external auth provider with id "github" was found.');
    assert.match(lines[1] ?? '', /^ {2}No external auth providers are configured in this deployment/);
    assert.match(lines[2] ?? '', /^hint: "github" must be the id of an external auth provider/);

    const json = await insideWorkspace.run('external-auth', 'access-token', 'github', '-o', 'json');
    assert.equal(json.code, 1);
    const { error } = JSON.parse(json.stderr) as { error: { message: string; detail: string; hint: string } };
    assert.match(error.message, /"github"/);
    assert.match(error.detail, /No external auth providers are configured/);
    assert.ok(error.hint);
  });

  it('refuses a token that is no agent’s, and says which one it used', async () => {
    const wrong = await insideWorkspace.withEnv({ COVE_AGENT_TOKEN: 'not-an-agent-token' }).run('external-auth', 'access-token', 'github');
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /^error: The deployment refused the agent token/);
    assert.match(wrong.stderr, /hint: COVE_AGENT_TOKEN \(or --token\)/);
    // --url and --token name the agent's deployment and token, as for `cove agent`.
    const flags = await new CliUser().run('--url', test.url, '--token', AGENT_TOKEN, 'external-auth', 'access-token', 'gitlab');
    assert.equal(flags.code, 1);
    assert.match(flags.stderr, /^error: No external auth provider with id "gitlab" was found\./);
  });

  it('fails clearly outside a workspace and without a provider', async () => {
    const outside = await new CliUser().run('external-auth', 'access-token', 'github');
    assert.equal(outside.code, 1);
    assert.match(
      outside.stderr,
      /^error: This command speaks as the workspace agent, and COVE_AGENT_URL and COVE_AGENT_TOKEN are not set\.\n/,
    );
    assert.match(outside.stderr, /\nhint: /);
    const noToken = await new CliUser({ COVE_AGENT_URL: test.url }).run('external-auth', 'access-token', 'github');
    assert.match(noToken.stderr, /and COVE_AGENT_TOKEN is not set\./);

    const missing = await insideWorkspace.run('external-auth', 'access-token');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: Name the provider, or give --match URL\./);
    const both = await insideWorkspace.run('external-auth', 'access-token', 'github', '--match', 'https://github.com/a/b.git');
    assert.equal(both.code, 1);
    assert.match(both.stderr, /^error: Give the provider or --match, not both\./);
    const extraArgument = await insideWorkspace.run('external-auth', 'access-token', 'github', 'gitlab');
    assert.equal(extraArgument.code, 1);
    assert.match(extraArgument.stderr, /too many arguments/);
    const noValue = await insideWorkspace.run('external-auth', 'access-token', 'github', '--extra');
    assert.equal(noValue.code, 1);
    assert.match(noValue.stderr, /option '--extra <field>' argument missing/);
  });

  it('documents the command, its flag and its examples in --help', async () => {
    const help = await insideWorkspace.run('external-auth', 'access-token', '--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: cove external-auth access-token \[options\] \[provider\]/);
    assert.match(help.stdout, /--extra <field>/);
    assert.match(help.stdout, /\$ cove external-auth access-token github\n/);
    assert.match(help.stdout, /prints the\s+URL where you link it instead, and exits with code 1/);
    const group = await insideWorkspace.run('external-auth', '--help');
    assert.match(group.stdout, /access-token \[options\] \[provider\]\s+Print your access token for an external\s+auth provider/);
    const top = await insideWorkspace.run('--help');
    assert.match(top.stdout, /external-auth\s+Link your accounts at external auth providers/);
  });
});
