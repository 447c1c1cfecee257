import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { CoveClient } from '../../src/sdk/client.js';
import type { Template, Workspace } from '../../src/sdk/wire/index.js';
import { main } from '../../src/cli/main.js';
import { TestLicenseIssuer } from '../helpers/licenses.js';
import { CliUser, type CliResult } from '../helpers/run-cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * Runs the CLI in-process with `input` piped to its standard input; with `terminal`, standard
 * input claims to be a terminal and each line of `input` is typed when a prompt opens.
 */
async function runWithInput(user: CliUser, input: string, ...args: string[]): Promise<CliResult> {
  return runIn(user, { input, terminal: false }, args);
}

async function runOnTerminal(user: CliUser, answers: readonly string[], ...args: string[]): Promise<CliResult> {
  return runIn(user, { input: answers, terminal: true }, args);
}

async function runIn(
  user: CliUser,
  stdinContent: { readonly input: string | readonly string[]; readonly terminal: boolean },
  args: readonly string[],
): Promise<CliResult> {
  const output = { stdout: '', stderr: '' };
  const collect = (stream: 'stdout' | 'stderr') =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        output[stream] += chunk.toString('utf8');
        done();
      },
    });
  const stdin = Object.assign(new PassThrough(), { isTTY: stdinContent.terminal });
  if (typeof stdinContent.input === 'string') stdin.end(stdinContent.input);
  else {
    const queue = [...stdinContent.input];
    stdin.on('resume', () => {
      const answer = queue.shift();
      if (answer !== undefined) setImmediate(() => stdin.write(`${answer}\r`));
    });
  }
  const code = await main(['node', 'cove', ...args], {
    stdout: collect('stdout'),
    stderr: collect('stderr'),
    stdin,
    env: { COVE_CONFIG_DIR: user.configDir, COVE_SECRET_STORE: 'file', ...user.env },
  });
  return { code, ...output };
}

const RESOURCES = [{ name: 'box', type: 'echo', agents: [{ name: 'main' }] }];

/** Version one: a number, a list and an ephemeral switch, each with a default. */
const FIRST = {
  parse: {
    parameters: [
      { name: 'size', type: 'number', default_value: '2', mutable: true },
      { name: 'tags', type: 'list(string)', default_value: '["base"]', mutable: true },
      { name: 'reset', type: 'bool', default_value: 'false', mutable: true, ephemeral: true },
    ],
  },
  apply: { resources: RESOURCES },
};

/** Version two, made active after the first: one more parameter, so the versions differ. */
const SECOND = {
  parse: { parameters: [...FIRST.parse.parameters, { name: 'region', type: 'string', default_value: 'eu', mutable: true }] },
  apply: { resources: RESOURCES },
};

describe('flags scripts rely on: create from a version, defaults, ephemeral values, parameter files', () => {
  let test: TestDaemon;
  let client: CoveClient;
  let template: Template;
  const admin = new CliUser();
  const issuer = new TestLicenseIssuer();
  const work = mkdtempSync(join(tmpdir(), 'cove-script-flags-'));

  async function cli(...args: string[]): Promise<CliResult> {
    const result = await admin.run(...args);
    assert.equal(result.code, 0, `cove ${args.join(' ')}: ${result.stderr}${result.stdout}`);
    return result;
  }

  async function workspace(name: string): Promise<Workspace> {
    return client.workspaceByOwnerAndName('me', name);
  }

  async function parametersOf(name: string): Promise<Record<string, string>> {
    const build = (await workspace(name)).latest_build;
    return Object.fromEntries((await client.workspaceBuildParameters(build.id)).map((p) => [p.name, p.value]));
  }

  function templateDir(name: string, echo: unknown): string {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'echo.json'), JSON.stringify(echo));
    return dir;
  }

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '2', licensePublicKeys: issuer.trustEntry } });
    await admin.signUpFirstUser(test.url, { email: 'a@example.com', username: 'admin' });
    client = new CoveClient({ url: test.url, token: admin.savedToken() });
    await cli('templates', 'push', templateDir('first', FIRST), '--name', 'lab', '--version-name', 'one', '-y');
    await cli('templates', 'push', templateDir('second', SECOND), '--name', 'lab', '--version-name', 'two', '-y');
    template = await client.templateByName('default', 'lab');
  });
  after(async () => test.close());

  it('creates from the version --template-version names, and takes every default with --use-parameter-defaults', async () => {
    const one = await client.templateVersionByName(template.id, 'one');
    const created = await cli('create', 'older', '-t', 'lab', '--template-version', 'one', '--use-parameter-defaults', '-y');
    const older = await workspace('older');
    assert.equal(older.latest_build.template_version_id, one.id);
    assert.equal(older.outdated, true);
    assert.match(created.stdout, /Using the default value of size: '2'/);
    assert.match(created.stdout, /Using the default value of tags: '\["base"\]'/);
    assert.doesNotMatch(created.stdout, /default value of reset/, 'an ephemeral parameter is not given its default');
    assert.deepEqual(await parametersOf('older'), { size: '2', tags: '["base"]', reset: 'false' });

    const unknown = await admin.run('create', 'nowhere', '-t', 'lab', '--template-version', 'three', '-y');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Template "lab" has no version named "three"/);
  });

  it('sends --ephemeral-parameter values on create, start and restart, for that build only', async () => {
    await cli('create', 'eph', '-t', 'lab', '--ephemeral-parameter', 'reset=true', '-y');
    assert.equal((await parametersOf('eph'))['reset'], 'true');
    await cli('restart', 'eph', '-y');
    assert.equal((await parametersOf('eph'))['reset'], 'false', 'not carried to the next build');
    await cli('restart', 'eph', '--ephemeral-parameter', 'reset=true', '-y');
    assert.equal((await parametersOf('eph'))['reset'], 'true');
    await cli('stop', 'eph', '-y');
    await cli('start', 'eph', '--ephemeral-parameter', 'reset=true', '-y');
    assert.equal((await parametersOf('eph'))['reset'], 'true');

    const asked = await runOnTerminal(admin, ['maybe', ''], 'restart', 'eph', '--prompt-ephemeral-parameters', '-y');
    assert.equal(asked.code, 0, asked.stderr + asked.stdout);
    assert.match(asked.stderr, /reset \(false\): [^]*value "maybe" must be true or false; try again[^]*reset \(false\): /);
    assert.equal((await parametersOf('eph'))['reset'], 'false', 'an empty answer takes the default');
    const noTerminal = await admin.run('restart', 'eph', '--prompt-ephemeral-parameters', '-y');
    assert.equal(noTerminal.code, 1);
    assert.match(noTerminal.stderr, /--prompt-ephemeral-parameters asks on a terminal/);
    assert.match(noTerminal.stderr, /--ephemeral-parameter NAME=VALUE/);
  });

  it('takes a YAML list in --rich-parameter-file as the list value, and refuses a map', async () => {
    const file = join(work, 'params.yaml');
    writeFileSync(file, 'size: 3\ntags: [web, 8080]\nregion: us\n');
    await cli('create', 'listed', '-t', 'lab', '--rich-parameter-file', file, '-y');
    assert.deepEqual(await parametersOf('listed'), { size: '3', tags: '["web","8080"]', region: 'us', reset: 'false' });

    const block = join(work, 'block.yaml');
    writeFileSync(block, 'tags:\n  - api\n  - worker\n');
    await cli('update', 'older', '--rich-parameter-file', block, '-y');
    assert.equal((await parametersOf('older'))['tags'], '["api","worker"]');

    const mapped = join(work, 'mapped.yaml');
    writeFileSync(mapped, 'tags:\n  web: true\n');
    const refused = await admin.run('create', 'mapped', '-t', 'lab', '--rich-parameter-file', mapped, '-y');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /The value of "tags" in .*mapped\.yaml is not a parameter value/);
  });

  it('reads repeatable parameter flags from their COVE_ variables when not given', async () => {
    const viaEnv = admin.withEnv({ COVE_RICH_PARAMETER: 'size=5,"tags=[""a,b""]"', COVE_EPHEMERAL_PARAMETER: 'reset=true' });
    const created = await viaEnv.run('create', 'env', '-t', 'lab', '-y');
    assert.equal(created.code, 0, created.stderr + created.stdout);
    assert.deepEqual(await parametersOf('env'), { size: '5', tags: '["a,b"]', reset: 'true', region: 'eu' });
  });

  it("pushes NAME -d DIR with --var and --variables-file as the version's variable values", async () => {
    const dir = templateDir('vars', {
      parse: {
        variables: [
          { name: 'region', type: 'string', required: true },
          { name: 'zone', type: 'string', default_value: 'a' },
          { name: 'size', type: 'number', default_value: '1' },
        ],
      },
      apply: { resources: RESOURCES },
    });
    const file = join(work, 'vars.yaml');
    writeFileSync(file, 'region: us\nsize: 4\n');
    await cli('templates', 'push', 'withvars', '-d', dir, '--variables-file', file, '--var', 'region=eu', '--var', 'zone=b=c', '-y');
    const pushed = await client.templateByName('default', 'withvars');
    const values = Object.fromEntries(
      (await client.templateVersionVariables(pushed.active_version_id)).map((variable) => [variable.name, variable.value]),
    );
    assert.deepEqual(values, { region: 'eu', zone: 'b=c', size: '4' }, '--var wins over the file');

    const malformed = await admin.run('templates', 'push', 'withvars', '--directory', dir, '--var', 'region', '-y');
    assert.equal(malformed.code, 1);
    assert.match(malformed.stderr, /--var "region" is not NAME=VALUE/);
    assert.match(malformed.stderr, /--var region=eu/);
    assert.equal((await client.templateVersions(pushed.id)).length, 1, 'nothing was uploaded');
  });

  it('prints the session token with login token, and fails clearly when nobody is signed in', async () => {
    const printed = await cli('login', 'token');
    assert.equal(printed.stdout, `${admin.savedToken()}\n`);
    assert.equal(printed.stderr, '');
    assert.equal((await new CoveClient({ url: test.url, token: printed.stdout.trim() }).user('me')).username, 'admin');

    const stranger = new CliUser({ COVE_URL: test.url });
    const none = await stranger.run('login', 'token');
    assert.equal(none.code, 1);
    assert.equal(none.stdout, '');
    assert.match(none.stderr, new RegExp(`You are not signed in to ${test.url}`));
    assert.match(none.stderr, /Run "cove login/);
  });

  it('lists the schedules of your workspaces with schedule show and no name', async () => {
    await cli('schedule', 'start', 'listed', '9:30AM', 'Mon-Fri', 'Europe/Dublin');
    await cli('schedule', 'stop', 'listed', '8h');
    const table = await cli('schedule', 'show');
    assert.match(table.stdout, /^WORKSPACE\s+STARTS AT\s+STARTS NEXT\s+STOPS AFTER\s+STOPS NEXT\n/);
    assert.match(table.stdout, /\nadmin\/listed\s+CRON_TZ=Europe\/Dublin 30 9 \* \* Mon-Fri\s+\S+ \S+\s+8h\n/);
    assert.match(table.stdout, /\nadmin\/older\s/);

    const json = JSON.parse((await cli('schedule', 'show', '--search', 'name:listed', '-o', 'json')).stdout) as {
      workspace: string;
      autostart_schedule: string | null;
      ttl_ms: number | null;
    }[];
    assert.deepEqual(
      json.map((row) => [row.workspace, row.autostart_schedule, row.ttl_ms]),
      [['admin/listed', 'CRON_TZ=Europe/Dublin 30 9 * * Mon-Fri', 8 * 3_600_000]],
    );
    const all = await cli('schedule', 'show', '--all', '-c', 'workspace');
    assert.match(all.stdout, /^WORKSPACE\n(admin\/\w+\n)+$/);
  });

  it('adds a license from standard input: --file -, the argument -, or piped in; an empty input is named', async () => {
    const license = async (account: string) => `${await issuer.license({ now: test.clock.now(), accountId: account })}\n`;
    for (const args of [['--file', '-'], ['-'], []]) {
      const added = await runWithInput(admin, await license(`stdin${args.length}`), 'licenses', 'add', ...args, '-o', 'json');
      assert.equal(added.code, 0, `licenses add ${args.join(' ')}: ${added.stderr}`);
      assert.equal((JSON.parse(added.stdout) as { claims: { account_id: string } }).claims.account_id, `stdin${args.length}`);
    }
    const empty = await runWithInput(admin, '\n', 'licenses', 'add', '--file', '-');
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /Standard input held no license\./);
    assert.match(empty.stderr, /cove licenses add - < cove\.license/);
  });
});
