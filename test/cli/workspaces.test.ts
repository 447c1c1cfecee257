import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { CoveClient } from '../../src/sdk/client.js';
import type { Workspace } from '../../src/sdk/wire/index.js';
import { CliUser, type CliResult } from '../helpers/run-cli.js';
import { createMember, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const RESOURCES = [{ name: 'box', type: 'echo', agents: [{ name: 'main' }] }];

const ECHO = {
  parse: { parameters: [{ name: 'size', type: 'number', default_value: '2', mutable: true, validation_min: 1, validation_max: 8 }] },
  apply: { resources: RESOURCES },
};

/** A template whose parameter has no default, so `create` must ask for it or be told it. */
const REGIONAL = {
  parse: {
    parameters: [
      {
        name: 'region',
        display_name: 'Region',
        type: 'string',
        options: [
          { name: 'Europe', value: 'eu' },
          { name: 'America', value: 'us' },
        ],
      },
    ],
  },
  apply: { resources: RESOURCES },
};

/** Starts hang until canceled; a stop in the meantime is refused. */
const SLOW = { apply: { resources: RESOURCES, start: { hang: true } } };

const BROKEN = { apply: { resources: RESOURCES, start: { error: 'no capacity left in the pool' } } };

/**
 * Runs the CLI on a pretend terminal: every time a prompt opens (readline resumes stdin), the
 * next answer is typed.
 */
async function runOnTerminal(
  user: CliUser,
  answers: readonly string[],
  ...args: string[]
): Promise<CliResult & { readonly asked: number }> {
  let stdout = '';
  let stderr = '';
  const collect = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        append(chunk.toString('utf8'));
        done();
      },
    });
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const queue = [...answers];
  let asked = 0;
  stdin.on('resume', () => {
    asked++;
    const answer = queue.shift();
    if (answer !== undefined) setImmediate(() => stdin.write(`${answer}\r`));
  });
  const code = await main(['node', 'cove', ...args], {
    stdout: collect((text) => (stdout += text)),
    stderr: collect((text) => (stderr += text)),
    stdin,
    env: { COVE_CONFIG_DIR: user.configDir, COVE_SECRET_STORE: 'file' },
  });
  return { code, stdout, stderr, asked };
}

describe('cove workspaces', () => {
  let test: TestDaemon;
  let client: CoveClient;
  const admin = new CliUser();
  const work = mkdtempSync(join(tmpdir(), 'cove-workspaces-'));

  /** Writes an echo template directory and pushes it as `name`. */
  async function pushTemplate(name: string, echo: unknown): Promise<void> {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'echo.json'), JSON.stringify(echo));
    const pushed = await admin.run('templates', 'push', dir, '-y');
    assert.equal(pushed.code, 0, pushed.stderr + pushed.stdout);
  }

  async function listed(...extra: string[]): Promise<Workspace[]> {
    const result = await admin.run('ls', '-o', 'json', ...extra);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as Workspace[];
  }

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '2' } });
    await admin.signUpFirstUser(test.url, { email: 'a@example.com', username: 'admin' });
    client = new CoveClient({ url: test.url, token: admin.savedToken() });
    await pushTemplate('echo', ECHO);
  });
  after(async () => test.close());

  it('creates, lists, shows, stops, starts, restarts and deletes a workspace', async () => {
    const created = await admin.run('create', 'dev', '--template', 'echo', '-y');
    assert.equal(created.code, 0, created.stderr + created.stdout);
    assert.match(created.stdout, /==> ⧗ Starting workspace/);
    assert.match(created.stdout, /=== ✔ Starting workspace \[\d+ms\]/);
    assert.match(created.stdout, /Workspace "dev" is running\.\n$/);

    const [workspace] = await listed();
    assert.equal(workspace?.name, 'dev');
    assert.equal(workspace?.latest_build.status, 'running');
    const table = await admin.run('list');
    assert.match(table.stdout, /^WORKSPACE\s+TEMPLATE\s+STATUS\s+LAST BUILT\s+VERSION\s+OUTDATED\n/);
    assert.match(table.stdout, /\ndev\s+echo\s+running\s/);

    const shown = await admin.run('show', 'dev');
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^workspace:\s+admin\/dev$/m);
    assert.match(shown.stdout, /^status:\s+running$/m);
    assert.match(shown.stdout, /^ {2}box \(echo\)\n {4}agent main: connecting/m);
    const shownJson = await admin.run('show', 'admin/dev', '-o', 'json');
    assert.equal((JSON.parse(shownJson.stdout) as Workspace).id, workspace?.id);

    const stopped = await admin.run('stop', 'dev');
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, /==> ⧗ Stopping workspace/);
    assert.match(stopped.stdout, /Workspace "dev" is stopped\.\n$/);
    assert.match((await admin.run('stop', 'dev')).stdout, /already stopped/);

    const started = await admin.run('start', 'dev', '--parameter', 'size=3');
    assert.equal(started.code, 0, started.stderr);
    assert.match(started.stdout, /Workspace "dev" is running\.\n$/);
    assert.equal((await listed())[0]?.latest_build.status, 'running');

    const restarted = await admin.run('restart', 'admin/dev', '--parameter', 'size=4');
    assert.equal(restarted.code, 0, restarted.stderr);
    assert.match(restarted.stdout, /Workspace "admin\/dev" is stopped\.\n[^]*Workspace "admin\/dev" is running\.\n$/);
    const latest = (await listed())[0]?.latest_build;
    assert.equal(latest?.build_number, 5);
    assert.deepEqual(await client.workspaceBuildParameters(latest?.id ?? ''), [{ name: 'size', value: '4' }]);

    const unconfirmed = await admin.run('delete', 'dev');
    assert.equal(unconfirmed.code, 1);
    assert.match(unconfirmed.stderr, /needs confirmation/);
    assert.match(unconfirmed.stderr, /-y/);

    const deleted = await admin.run('delete', 'dev', '-y');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /==> ⧗ Destroying workspace/);
    assert.match(deleted.stdout, /Workspace "dev" has been deleted\.\n$/);
    assert.deepEqual(await listed(), []);
    const gone = await admin.run('show', 'dev');
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /No workspace "dev" among your workspaces/);
  });

  it('prints only the workspace under -o json', async () => {
    const created = await admin.run(
      'create',
      'scripted',
      '-t',
      'echo',
      '-y',
      '-o',
      'json',
      '--ttl',
      '8h',
      '--autostart',
      'CRON_TZ=Europe/London 30 9 * * 1-5',
      '--automatic-updates',
      'always',
    );
    assert.equal(created.code, 0, created.stderr);
    const workspace = JSON.parse(created.stdout) as Workspace;
    assert.equal(workspace.name, 'scripted');
    assert.equal(workspace.latest_build.status, 'running');
    assert.equal(workspace.ttl_ms, 8 * 3_600_000);
    assert.equal(workspace.autostart_schedule, 'CRON_TZ=Europe/London 30 9 * * 1-5');
    assert.equal(workspace.automatic_updates, 'always');
    const badTtl = await admin.run('create', 'late', '-t', 'echo', '-y', '--ttl', 'soon');
    assert.equal(badTtl.code, 1);
    assert.match(badTtl.stderr, /--ttl "soon" is not a duration/);
    const deleted = await admin.run('rm', 'scripted', '-y', '-o', 'json');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal((JSON.parse(deleted.stdout) as Workspace).latest_build.status, 'deleted');
  });

  it('refuses bad parameters and missing arguments before creating anything', async () => {
    const big = await admin.run('create', 'big', '--template', 'echo', '--parameter', 'size=999', '-y');
    assert.equal(big.code, 1);
    assert.match(big.stderr, /parameter "size"/);
    assert.match(big.stderr, /maximum 8/);
    assert.match(big.stderr, /"size" takes a whole number from 1 to 8/);

    const typo = await admin.run('create', 'typo', '--template', 'echo', '--parameter', 'sise=3', '-y');
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /no parameter "sise"/);
    assert.match(typo.stderr, /Did you mean "size"\?/);

    const noTemplate = await admin.run('create', 'lost');
    assert.equal(noTemplate.code, 1);
    assert.match(noTemplate.stderr, /needs --template/);
    assert.match(noTemplate.stderr, /--template TEMPLATE/);
    assert.match(noTemplate.stderr, /Templates you can use: echo/);

    const nothing = await admin.run('create');
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /needs a workspace name and --template/);

    await pushTemplate('regional', REGIONAL);
    const noRegion = await admin.run('create', 'far', '-t', 'regional', '-y');
    assert.equal(noRegion.code, 1);
    assert.match(noRegion.stderr, /without a value: region \(one of: eu, us\)/);
    assert.match(noRegion.stderr, /--parameter region=VALUE/);

    const file = join(work, 'params.yaml');
    writeFileSync(file, 'region: us\n');
    const fromFile = await admin.run('create', 'far', '-t', 'regional', '--rich-parameter-file', file, '-y');
    assert.equal(fromFile.code, 0, fromFile.stderr);
    const far = (await listed()).find((w) => w.name === 'far');
    assert.deepEqual(await client.workspaceBuildParameters(far?.latest_build.id ?? ''), [{ name: 'region', value: 'us' }]);
    assert.equal((await admin.run('delete', 'far', '-y')).code, 0);
  });

  it('asks for the name, the template and parameters without a default on a terminal', async () => {
    const result = await runOnTerminal(admin, ['asked', 'regional', '7', '2', ''], 'create');
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.match(result.stderr, /Name for the new workspace: /);
    assert.match(result.stderr, /Template \(number or name\): /);
    assert.match(result.stderr, /Region \(region\)\n {2}one of: eu, us\n {2}1\) Europe \[eu\]\n {2}2\) America \[us\]/);
    assert.match(
      result.stderr,
      /value "7" must match one of options: \[eu, us\]; try again/,
      'an answer outside the options is asked again',
    );
    assert.match(result.stderr, /Create workspace "asked" from template "regional"\? \[Y\/n\]/);
    assert.match(result.stdout, /Workspace "asked" is running\./);
    const [workspace] = (await listed()).filter((w) => w.name === 'asked');
    assert.deepEqual(await client.workspaceBuildParameters(workspace?.latest_build.id ?? ''), [{ name: 'region', value: 'us' }]);

    const declined = await runOnTerminal(admin, ['n'], 'delete', 'asked');
    assert.equal(declined.code, 1);
    assert.match(declined.stderr, /Canceled: nothing was deleted/);
    assert.equal((await admin.run('delete', 'asked', '-y')).code, 0);
  });

  it('refuses a build while one is active, with a way out, and cancels it', async () => {
    await pushTemplate('slow', SLOW);
    const workspace = await client.createWorkspace('me', {
      name: 'busy',
      template_id: (await client.templateByName('default', 'slow')).id,
    });
    const refused = await admin.run('stop', 'busy');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /A workspace build is already active/);
    assert.match(refused.stderr, /cove workspaces cancel busy/);

    const canceled = await admin.run('workspaces', 'cancel', 'busy');
    assert.equal(canceled.code, 0, canceled.stderr);
    assert.match(canceled.stdout, /Canceling the start build of workspace "busy"/);
    assert.match(canceled.stdout, /The last build of workspace "busy" was canceled\./);
    assert.equal((await client.workspace(workspace.id)).latest_build.status, 'canceled');
    const idle = await admin.run('workspaces', 'cancel', 'busy');
    assert.equal(idle.code, 1);
    assert.match(idle.stderr, /no active build/);
  });

  it('fails with the job error when the build fails', async () => {
    await pushTemplate('broken', BROKEN);
    const failed = await admin.run('create', 'doomed', '-t', 'broken', '-y');
    assert.equal(failed.code, 1);
    assert.match(failed.stdout, /=== ✘ /);
    assert.match(failed.stderr, /The start build of workspace "doomed" failed: .*no capacity left in the pool/);
    assert.equal((await listed()).find((w) => w.name === 'doomed')?.latest_build.status, 'failed');
  });

  it('updates an outdated workspace to the active version', async () => {
    assert.equal((await admin.run('create', 'old', '-t', 'echo', '-y')).code, 0);
    const current = await admin.run('update', 'old');
    assert.equal(current.code, 0, current.stderr);
    assert.match(current.stdout, /already on the active version/);

    await pushTemplate('echo', {
      ...ECHO,
      parse: { parameters: [...ECHO.parse.parameters, { name: 'zone', type: 'string', mutable: true }] },
    });
    const outdated = (await listed()).find((w) => w.name === 'old');
    assert.equal(outdated?.outdated, true);
    assert.match((await admin.run('ls')).stdout, /\nold\s+echo\s+running\s.*outdated\n/);

    const missing = await admin.run('update', 'old');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /without a value: zone/);

    const updated = await admin.run('update', 'old', '--parameter', 'zone=b');
    assert.equal(updated.code, 0, updated.stderr + updated.stdout);
    assert.match(updated.stdout, /Workspace "old" is stopped\.\n[^]*Workspace "old" is running\.\n$/);
    const after = (await listed()).find((w) => w.name === 'old');
    assert.equal(after?.outdated, false);
    assert.equal(after?.latest_build.template_version_id, after?.template_active_version_id);
  });

  it("lists other users' workspaces as owner/name with --all, and filters with --search", async () => {
    const bob = await createMember(test, 'bob');
    await bob.createWorkspace('me', {
      name: 'lab',
      template_id: (await client.templateByName('default', 'echo')).id,
      rich_parameter_values: [{ name: 'zone', value: 'a' }],
    });
    assert.ok(!(await listed()).some((w) => w.name === 'lab'), 'only your own by default');
    const all = await admin.run('ls', '--all');
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /\nbob\/lab\s+echo\s/);
    assert.match(all.stdout, /\nold\s+echo\s/);
    const search = await listed('--search', 'status:canceled');
    assert.deepEqual(
      search.map((w) => w.name),
      ['busy'],
    );
  });
});
