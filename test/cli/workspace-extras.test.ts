import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { silentLogger, startAgent, type AgentHandle } from '../../src/agent/index.js';
import { main } from '../../src/cli/main.js';
import { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace, type AgentWorkspace } from '../helpers/agent-workspace.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { CliUser } from '../helpers/run-cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const TOKEN = 'agent-token-for-the-workspace-extras';
const BROKEN_TOKEN = 'agent-token-whose-start-script-fails';

describe('cove logs, favorite, unfavorite, rename, autoupdate, publickey and state', () => {
  let test: TestDaemon;
  let client: CoveClient;
  let dev: AgentWorkspace;
  let broken: AgentHandle | undefined;
  const admin = new CliUser();
  const work = mkdtempSync(join(tmpdir(), 'cove-extras-'));

  /** Runs the CLI in-process, resolving `seen` once stdout contains `wanted`, and `done` with the exit code. */
  function runWatching(wanted: string, ...args: string[]) {
    let stdout = '';
    let stderr = '';
    let onSeen: () => void = () => undefined;
    const seen = new Promise<void>((resolve) => (onSeen = resolve));
    const out = new Writable({
      write(chunk: Buffer, _encoding, next) {
        stdout += chunk.toString('utf8');
        if (stdout.includes(wanted)) onSeen();
        next();
      },
    });
    const err = new Writable({
      write(chunk: Buffer, _encoding, next) {
        stderr += chunk.toString('utf8');
        next();
      },
    });
    const stdin = new PassThrough();
    stdin.end();
    const done = main(['node', 'cove', ...args], {
      stdout: out,
      stderr: err,
      stdin,
      env: { COVE_CONFIG_DIR: admin.configDir, COVE_SECRET_STORE: 'file' },
    }).then((code) => ({ code, stdout, stderr }));
    return { seen, done };
  }

  /** Runs the CLI on a pretend terminal that types `answer` when the command asks. */
  async function runOnTerminal(answer: string, ...args: string[]) {
    let stdout = '';
    let stderr = '';
    const collect = (append: (text: string) => void) =>
      new Writable({
        write(chunk: Buffer, _encoding, next) {
          append(chunk.toString('utf8'));
          next();
        },
      });
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    stdin.once('resume', () => setImmediate(() => stdin.write(`${answer}\r`)));
    const code = await main(['node', 'cove', ...args], {
      stdout: collect((text) => (stdout += text)),
      stderr: collect((text) => (stderr += text)),
      stdin,
      env: { COVE_CONFIG_DIR: admin.configDir, COVE_SECRET_STORE: 'file' },
    });
    return { code, stdout, stderr };
  }

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1', allowWorkspaceRenames: 'true' } });
    await admin.signUpFirstUser(test.url, { email: 'a@example.com', username: 'admin' });
    client = new CoveClient({ url: test.url, token: admin.savedToken() });
    const home = join(work, 'home');
    mkdirSync(home);
    dev = await startAgentWorkspace({
      url: test.url,
      owner: client,
      member: client,
      token: TOKEN,
      home,
      name: 'dev',
      agent: { scripts: [{ display_name: 'Startup Script', script: 'echo hello from the start script', run_on_start: true }] },
    });
    // A workspace without agents, for the commands that change or rebuild it.
    await createEchoTemplate(client, 'plain', { apply: { resources: [{ name: 'box', type: 'echo' }] } });
    assert.equal((await admin.run('create', 'plain', '--template', 'plain', '-y')).code, 0);
  });
  after(async () => {
    await broken?.stop();
    await dev.agent.stop();
    await test.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("prints the build log, then the agent's log grouped by source, for people and as JSON lines", async () => {
    await eventually(async () => {
      const logs = await client.workspaceAgentLogs(dev.agentId);
      assert.ok(logs.some((log) => log.output === 'hello from the start script'));
    });
    const shown = await admin.run('logs', 'dev');
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^==> Build #1: start on template version \S+, by admin \(running\)\n/);
    assert.match(shown.stdout, / info {2}\[provisioner\|[^\]]+\] /);
    const agentAt = shown.stdout.indexOf('==> Agent "main": Startup Script\n');
    assert.ok(agentAt > shown.stdout.indexOf('[provisioner|'), 'the agent logs follow the build log');
    assert.match(shown.stdout.slice(agentAt), /\S+ info {2}\[agent\.main\|Startup Script\] hello from the start script\n/);

    const json = await admin.run('logs', 'dev', '-o', 'json');
    assert.equal(json.code, 0, json.stderr);
    const lines = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(lines.some((line) => line['source'] === 'provisioner' && line['build_number'] === 1));
    const scripted = lines.find((line) => line['output'] === 'hello from the start script');
    assert.equal(scripted?.['source'], 'agent');
    assert.equal(scripted?.['agent'], 'main');
    assert.equal(scripted?.['log_source'], 'Startup Script');

    const old = await admin.run('logs', 'dev', '--build', '-1');
    assert.equal(old.code, 1);
    assert.match(old.stderr, /has no build -1 before its latest \(#1\)/);
  });

  it('points `cove ssh` at `cove logs` when start scripts failed', async () => {
    const { template } = await createEchoTemplate(client, 'broken', {
      apply: {
        resources: [
          {
            name: 'box',
            type: 'echo',
            agents: [
              { name: 'main', auth_token: BROKEN_TOKEN, scripts: [{ display_name: 'Setup', script: 'exit 3', run_on_start: true }] },
            ],
          },
        ],
      },
    });
    const workspace = await client.createWorkspace('me', { name: 'broken', template_id: template.id });
    await client.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    broken = startAgent({
      url: test.url,
      token: BROKEN_TOKEN,
      logger: silentLogger,
      env: { PATH: process.env['PATH'], HOME: work, SHELL: '/bin/sh' },
    });
    await eventually(async () => {
      const agent = (await client.workspace(workspace.id)).latest_build.resources[0]?.agents[0];
      assert.equal(agent?.lifecycle_state, 'start_error');
    });
    const ssh = await admin.run('ssh', 'broken', '--', 'true');
    assert.equal(ssh.code, 0, ssh.stderr);
    assert.match(ssh.stderr, /the start scripts of agent "main" failed; .* See "cove logs broken"\./);
  });

  it('follows the agent logs as new lines arrive, until the workspace is built again', async () => {
    const following = runWatching('hello from the start script', 'logs', 'dev', '--follow');
    await following.seen;
    const agentClient = new CoveClient({ url: test.url, token: TOKEN });
    const source = (await client.workspaceAgent(dev.agentId)).log_sources[0] as { id: string };
    await agentClient.patchAgentLogs({
      log_source_id: source.id,
      logs: [{ created_at: new Date().toISOString(), level: 'warn', output: 'a line written while following' }],
    });
    // A new build replaces the one whose agent is followed: the stream ends, and so does the command.
    const stopped = await admin.run('stop', 'dev');
    assert.equal(stopped.code, 0, stopped.stderr);
    const { code, stdout, stderr } = await following.done;
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^==> Build #1: /);
    assert.match(stdout, /==> Agent "main"\n/);
    assert.match(stdout, / warn {2}\[agent\.main\|Startup Script\] a line written while following\n/);
  });

  it('favorites and unfavorites a workspace', async () => {
    const favorited = await admin.run('favorite', 'plain');
    assert.equal(favorited.code, 0, favorited.stderr);
    assert.equal(favorited.stdout, 'Workspace "plain" is now a favorite.\n');
    assert.equal((await client.workspaceByOwnerAndName('me', 'plain')).favorite, true);
    const json = await admin.run('unfavorite', 'plain', '-o', 'json');
    assert.equal(json.code, 0, json.stderr);
    assert.equal((JSON.parse(json.stdout) as { favorite: boolean }).favorite, false);
    assert.equal((await client.workspaceByOwnerAndName('me', 'plain')).favorite, false);
  });

  it('sets the automatic update policy, and refuses any other word', async () => {
    const always = await admin.run('autoupdate', 'plain', 'always');
    assert.equal(always.code, 0, always.stderr);
    assert.equal((await client.workspaceByOwnerAndName('me', 'plain')).automatic_updates, 'always');
    const never = await admin.run('autoupdate', 'plain', 'NEVER', '-o', 'json');
    assert.equal((JSON.parse(never.stdout) as { automatic_updates: string }).automatic_updates, 'never');
    const wrong = await admin.run('autoupdate', 'plain', 'sometimes');
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /"sometimes" is not an update policy/);
  });

  it('prints the git SSH public key, and makes a new one only when confirmed', async () => {
    const shown = await admin.run('publickey');
    assert.equal(shown.code, 0, shown.stderr);
    const key = (await client.gitSshKey()).public_key.trim();
    assert.equal(shown.stdout, `${key}\n`);
    assert.match(shown.stderr, /github\.com\/settings\/ssh\/new/);
    const unconfirmed = await admin.run('publickey', '--reset');
    assert.equal(unconfirmed.code, 1);
    assert.match(unconfirmed.stderr, /needs confirmation/);
    assert.equal((await client.gitSshKey()).public_key.trim(), key);
    const reset = await admin.run('publickey', '--reset', '-y', '-o', 'json');
    assert.equal(reset.code, 0, reset.stderr);
    const fresh = (JSON.parse(reset.stdout) as { public_key: string }).public_key;
    assert.notEqual(fresh.trim(), key);
    assert.equal((await client.gitSshKey()).public_key, fresh);
  });

  it('pulls the state of a build, replaces it in place, and builds from a pushed state', async () => {
    const first = join(work, 'first.tfstate');
    writeFileSync(first, '{"serial":1}');
    const inPlace = await admin.run('state', 'push', 'plain', first, '--no-build');
    assert.equal(inPlace.code, 0, inPlace.stderr);
    assert.equal(inPlace.stdout, 'Replaced the state of build #1 of workspace "plain" (12 bytes).\n');
    assert.equal((await admin.run('state', 'pull', 'plain')).stdout, '{"serial":1}\n');

    const second = join(work, 'second.tfstate');
    writeFileSync(second, '{"serial":2}');
    const rebuilt = await admin.run('state', 'push', 'plain', second);
    assert.equal(rebuilt.code, 0, rebuilt.stderr);
    assert.match(rebuilt.stdout, /Workspace "plain" is running\.\n$/);
    const workspace = await client.workspaceByOwnerAndName('me', 'plain');
    assert.equal(workspace.latest_build.build_number, 2);
    assert.equal(workspace.latest_build.transition, 'start');

    const saved = join(work, 'saved.tfstate');
    const pulled = await admin.run('state', 'pull', 'plain', saved);
    assert.equal(pulled.code, 0, pulled.stderr);
    assert.equal(readFileSync(saved, 'utf8'), '{"serial":2}');
    assert.equal(statSync(saved).mode & 0o777, 0o600);
    assert.equal((await admin.run('state', 'pull', 'plain', '--build', '1')).stdout, '{"serial":1}\n');
    assert.equal((await admin.run('state', 'pull', 'plain', '-b', '-1')).stdout, '{"serial":1}\n');
    const missing = await admin.run('state', 'pull', 'plain', '--build', '7');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /has no build #7/);
  });

  it('renames a workspace only when confirmed: with its name typed on a terminal, or -y', async () => {
    const unconfirmed = await admin.run('rename', 'plain', 'renamed');
    assert.equal(unconfirmed.code, 1);
    assert.match(unconfirmed.stderr, /Renaming workspace "plain" needs confirmation/);
    const mistyped = await runOnTerminal('plan', 'rename', 'plain', 'renamed');
    assert.equal(mistyped.code, 1);
    assert.match(mistyped.stderr, /WARNING: renaming can lose data/);
    assert.match(mistyped.stderr, /Canceled: "plan" is not "plain"; nothing was renamed/);
    const renamed = await runOnTerminal('plain', 'rename', 'plain', 'renamed');
    assert.equal(renamed.code, 0, renamed.stderr);
    assert.equal(renamed.stdout, 'Workspace "plain" is now "renamed".\n');
    assert.equal((await client.workspaceByOwnerAndName('me', 'renamed')).name, 'renamed');
    const json = await admin.run('rename', 'renamed', 'plain', '-y', '-o', 'json');
    assert.equal(json.code, 0, json.stderr);
    assert.equal((JSON.parse(json.stdout) as { name: string }).name, 'plain');
  });
});
