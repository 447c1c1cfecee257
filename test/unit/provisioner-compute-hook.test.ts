import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { exampleFiles, findTemplateExample } from '../../src/provisioner/native/examples/index.js';
import { ComputePartialFailure, type ComputeContext, type JsonValue } from '../../src/provisioner/native/compute.js';
import { toPlannedResource, type ResourceSpec } from '../../src/provisioner/native/expand-resources.js';
import { agentInitScript, createHookCompute } from '../../src/provisioner/native/hook-compute.js';
import { createNativeProvisioner } from '../../src/provisioner/native/native-provisioner.js';
import {
  ProvisionerCanceledError,
  ProvisionerError,
  type PlannedAgent,
  type ProvisionerLog,
  type Transition,
} from '../../src/provisioner/provisioner.js';

const scratch = await mkdtemp(join(tmpdir(), 'cove-hook-'));
const seenPids = new Set<number>();
after(async () => {
  for (const pid of seenPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as expected.
    }
  }
  await rm(scratch, { recursive: true, force: true });
});

let counter = 0;

/** A template directory with these files; scripts are executable unless `mode` says otherwise. */
async function templateDir(files: Record<string, string | { content: string; mode: number }>): Promise<string> {
  const directory = join(scratch, `t${++counter}`);
  for (const [path, entry] of Object.entries(files)) {
    const file = typeof entry === 'string' ? { content: entry, mode: 0o755 } : entry;
    await mkdir(dirname(join(directory, path)), { recursive: true });
    await writeFile(join(directory, path), file.content);
    await chmod(join(directory, path), file.mode);
  }
  return directory;
}

function context(
  templateDirectory: string,
  transition: Transition,
  logs: ProvisionerLog[] = [],
  signal = new AbortController().signal,
): ComputeContext {
  return {
    workspace: { id: 'ws-1', name: 'dev', owner: 'alice', owner_id: 'u-1', start_count: transition === 'start' ? 1 : 0 },
    transition,
    accessUrl: 'http://127.0.0.1:7080',
    templateDirectory,
    log: (line) => logs.push(line),
    signal,
  };
}

function agentsOf(spec: ResourceSpec, token: string): PlannedAgent[] {
  return toPlannedResource(spec).agents.map((agent, index) => ({ ...agent, auth_token: `${token}-${index}` }));
}

/** A hook that appends `<hook> <selected env>` as one JSON line to $OUT. */
const RECORDING_HOOK = `#!/bin/sh
set -eu
node -e '
const keys = ["COVE_HOOK", "COVE_TRANSITION", "COVE_AGENT_URL", "COVE_AGENT_TOKEN", "COVE_AGENT_NAME", "COVE_AGENT_TOKEN_SIDE_CAR", "COVE_WORKSPACE_ID", "COVE_WORKSPACE_NAME", "COVE_WORKSPACE_OWNER", "COVE_WORKSPACE_OWNER_ID", "COVE_HOOK_STATE", "VM_NAME", "COVE_SESSION_TOKEN", "COVE_PG_CONNECTION_URL"];
const picked = Object.fromEntries(keys.map((k) => [k, process.env[k] ?? null]));
picked.init = (process.env.COVE_AGENT_INIT ?? "").length > 0;
picked.cwd = process.cwd();
require("fs").appendFileSync(process.env.OUT, JSON.stringify(picked) + "\\n");
'
`;

const HOOK_ENV: NodeJS.ProcessEnv = { ...process.env, COVE_SESSION_TOKEN: 'session-secret', COVE_PG_CONNECTION_URL: 'postgres://secret' };

async function records(out: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(out, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('hook compute', () => {
  it('runs create once, then start, stop and delete, with the documented environment and state passed along', async () => {
    const out = join(scratch, 'hooks.jsonl');
    const directory = await templateDir({
      'hooks/create.sh': `${RECORDING_HOOK}echo created the machine\necho 'COVE_STATE={"machine":"m-1"}'\n`,
      'hooks/start.sh': `${RECORDING_HOOK}echo starting\necho 'a warning' >&2\n`,
      'hooks/stop.sh': `${RECORDING_HOOK}echo 'COVE_STATE={"machine":"m-1","stopped":true}'\n`,
      'hooks/delete.sh': RECORDING_HOOK,
    });
    const spec: ResourceSpec = {
      name: 'vm',
      type: 'hook',
      create: 'hooks/create.sh',
      start: 'hooks/start.sh',
      stop: 'hooks/stop.sh',
      delete: 'hooks/delete.sh',
      env: { VM_NAME: 'cove-ws-1', OUT: out },
      agents: [{ name: 'main' }, { name: 'side-car' }],
    };
    const compute = createHookCompute({ env: HOOK_ENV });
    const logs: ProvisionerLog[] = [];
    const first = await compute.start({
      resource: spec,
      agents: agentsOf(spec, 'b1'),
      previous: undefined,
      context: context(directory, 'start', logs),
    });
    assert.deepEqual(first, {
      created: true,
      hooks: { create: 'hooks/create.sh', start: 'hooks/start.sh', stop: 'hooks/stop.sh', delete: 'hooks/delete.sh' },
      env: { VM_NAME: 'cove-ws-1', OUT: out },
      hook_state: { machine: 'm-1' },
    });
    const [create, start] = await records(out);
    assert.deepEqual(create, {
      COVE_HOOK: 'create',
      COVE_TRANSITION: 'start',
      COVE_AGENT_URL: 'http://127.0.0.1:7080',
      COVE_AGENT_TOKEN: 'b1-0',
      COVE_AGENT_NAME: 'main',
      COVE_AGENT_TOKEN_SIDE_CAR: 'b1-1',
      COVE_WORKSPACE_ID: 'ws-1',
      COVE_WORKSPACE_NAME: 'dev',
      COVE_WORKSPACE_OWNER: 'alice',
      COVE_WORKSPACE_OWNER_ID: 'u-1',
      COVE_HOOK_STATE: '',
      VM_NAME: 'cove-ws-1',
      COVE_SESSION_TOKEN: null,
      COVE_PG_CONNECTION_URL: null,
      init: true,
      cwd: directory,
    });
    assert.equal(start?.['COVE_HOOK'], 'start');
    assert.equal(start?.['COVE_HOOK_STATE'], '{"machine":"m-1"}', 'what create recorded reaches start');
    const output = logs.map((line) => `${line.level} ${line.output}`);
    assert.ok(output.includes('info created the machine'));
    assert.ok(output.includes('info starting'));
    assert.ok(output.includes('warn a warning'), 'stderr lines are warnings');
    assert.ok(!output.some((line) => line.includes('m-1')), 'recorded state is not copied to the log');
    assert.ok(logs.every((line) => line.stage === 'Starting workspace'));

    await rm(out);
    const second = await compute.start({
      resource: spec,
      agents: agentsOf(spec, 'b2'),
      previous: first,
      context: context(directory, 'start'),
    });
    assert.deepEqual(
      (await records(out)).map((entry) => [entry['COVE_HOOK'], entry['COVE_AGENT_TOKEN']]),
      [['start', 'b2-0']],
      'create runs only on the first start',
    );

    await rm(out);
    // A restarted provisioner and a template that no longer declares the resource: the state is enough.
    const stopped = await createHookCompute({ env: HOOK_ENV }).stop({
      resource: undefined,
      previous: JSON.parse(JSON.stringify(second)) as JsonValue,
      context: context(directory, 'stop'),
    });
    assert.deepEqual((stopped as { hook_state: JsonValue }).hook_state, { machine: 'm-1', stopped: true });
    await createHookCompute({ env: HOOK_ENV }).delete({ previous: stopped, context: context(directory, 'delete') });
    const [stop, remove] = await records(out);
    assert.deepEqual(
      [stop?.['COVE_HOOK'], stop?.['COVE_TRANSITION'], stop?.['COVE_AGENT_TOKEN'], stop?.['COVE_HOOK_STATE']],
      ['stop', 'stop', '', '{"machine":"m-1"}'],
    );
    assert.deepEqual([remove?.['COVE_HOOK'], remove?.['COVE_HOOK_STATE']], ['delete', '{"machine":"m-1","stopped":true}']);
  });

  it('fails with the hook name, its exit code and its last lines, keeping what create made', async () => {
    const directory = await templateDir({
      'create.sh': '#!/bin/sh\necho made it\n',
      'start.sh':
        '#!/bin/sh\nfor i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "line $i"; done\necho "boom" >&2\necho COVE_STATE=\'"private"\'\nexit 3\n',
    });
    const spec: ResourceSpec = { name: 'vm', type: 'hook', create: 'create.sh', start: 'start.sh' };
    const failure = await createHookCompute()
      .start({ resource: spec, agents: [], previous: undefined, context: context(directory, 'start') })
      .then(
        () => assert.fail('expected a failure'),
        (error: unknown) => error,
      );
    assert.ok(failure instanceof ComputePartialFailure);
    assert.ok(failure.cause instanceof ProvisionerError);
    assert.equal(
      failure.cause.message,
      [
        'hook compute: the start hook (start.sh) exited with code 3; its last output:',
        ...[4, 5, 6, 7, 8, 9, 10, 11, 12].map((i) => `line ${i}`),
        'boom',
      ].join('\n'),
    );
    assert.equal((failure.partial as { created: boolean }).created, true, 'a retry must not create again, and a delete must run');
  });

  it('keeps what a failed start created in the build state, so that a delete runs the delete hook', async () => {
    const out = join(scratch, 'partial.log');
    const directory = await templateDir({
      'template.yaml': 'resources:\n  - { name: vm, type: hook, create: create.sh, start: start.sh, delete: delete.sh }\n',
      'create.sh': '#!/bin/sh\necho \'COVE_STATE={"id":"vm-9"}\'\n',
      'start.sh': '#!/bin/sh\nexit 1\n',
      'delete.sh': `#!/bin/sh\necho "delete $COVE_HOOK_STATE" >> ${out}\n`,
    });
    const provisioner = createNativeProvisioner();
    const input = {
      directory,
      variableValues: [],
      log: () => undefined,
      signal: new AbortController().signal,
      parameterValues: [],
      workspace: { id: 'ws-3', name: 'dev', owner: 'alice', owner_id: 'u-1', start_count: 1 },
      accessUrl: 'http://127.0.0.1:7080',
    };
    const failure = await provisioner.apply({ ...input, transition: 'start', previousState: null }).then(
      () => assert.fail('expected a failure'),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof ProvisionerError && failure.state);
    assert.equal(failure.message, 'hook compute: the start hook (start.sh) exited with code 1');
    await provisioner.apply({ ...input, transition: 'delete', previousState: failure.state });
    assert.equal(await readFile(out, 'utf8'), 'delete {"id":"vm-9"}\n');
  });

  it('runs a hook without the executable bit with sh, and refuses a hook missing from the template version', async () => {
    const directory = await templateDir({ 'start.sh': { content: 'echo "COVE_STATE={\\"via\\":\\"sh\\"}"\n', mode: 0o644 } });
    const state = await createHookCompute().start({
      resource: { name: 'vm', type: 'hook', start: 'start.sh' },
      agents: [],
      previous: undefined,
      context: context(directory, 'start'),
    });
    assert.deepEqual((state as { hook_state: JsonValue }).hook_state, { via: 'sh' });
    const previous = { created: true, hooks: { start: 'start.sh', delete: 'gone.sh' }, env: {}, hook_state: null };
    await assert.rejects(
      createHookCompute().delete({ previous, context: context(directory, 'delete') }),
      /the delete hook "gone.sh" is not in this template version/,
    );
    const escaping = { ...previous, hooks: { delete: '../outside.sh' } };
    await assert.rejects(
      createHookCompute().delete({ previous: escaping, context: context(directory, 'delete') }),
      /is not a path inside the template/,
    );
  });

  it('kills a hook that outlives its timeout, with what it started', async () => {
    const pidFile = join(scratch, 'timeout.pid');
    const directory = await templateDir({ 'stop.sh': `#!/bin/sh\nsleep 30 &\necho $! > ${pidFile}\nwait\n` });
    const started = Date.now();
    await assert.rejects(
      createHookCompute({ timeoutMs: 500 }).stop({
        resource: { name: 'vm', type: 'hook', start: 'stop.sh', stop: 'stop.sh' },
        previous: null,
        context: context(directory, 'stop'),
      }),
      (error: unknown) =>
        error instanceof ProvisionerError &&
        /^hook compute: the stop hook \(stop.sh\) did not finish within 0.5 s and was killed/.test(error.message),
    );
    assert.ok(Date.now() - started < 5_000);
    const sleeper = Number(await readFile(pidFile, 'utf8'));
    seenPids.add(sleeper);
    await waitForExit(sleeper);
  });

  it('kills the hook when the job is canceled', async () => {
    const pidFile = join(scratch, 'cancel.pid');
    const directory = await templateDir({ 'stop.sh': `#!/bin/sh\necho $$ > ${pidFile}\nsleep 30\n` });
    const controller = new AbortController();
    const stopping = createHookCompute().stop({
      resource: { name: 'vm', type: 'hook', start: 'stop.sh', stop: 'stop.sh' },
      previous: null,
      context: context(directory, 'stop', [], controller.signal),
    });
    const pid = await waitFor('the hook to start', async () => {
      const text = await readFile(pidFile, 'utf8').catch(() => '');
      return text.trim() === '' ? undefined : Number(text);
    });
    seenPids.add(pid);
    controller.abort();
    await assert.rejects(stopping, (error: unknown) => error instanceof ProvisionerCanceledError);
    await waitForExit(pid);
  });

  it('gives hooks an init script that runs cove agent, or downloads it for the agent platform', () => {
    const script = agentInitScript('http://cove.test:7080', { operating_system: 'linux', architecture: 'arm64' } as PlannedAgent);
    assert.match(script, /^#!\/bin\/sh\n/);
    assert.match(script, /exec cove agent/);
    assert.match(script, /: "\$\{COVE_AGENT_URL:=http:\/\/cove.test:7080\}"/);
    assert.match(script, /\/bin\/cove-linux-arm64"/);
  });
});

describe('the vm-hooks example through the native provisioner', () => {
  it('creates, starts, stops and deletes the VM with a stand-in multipass', async () => {
    const example = findTemplateExample('vm-hooks');
    assert.ok(example);
    const directory = join(scratch, 'vm-hooks');
    for (const file of exampleFiles(example)) {
      await mkdir(dirname(join(directory, file.path)), { recursive: true });
      await writeFile(join(directory, file.path), file.content, { mode: file.mode });
    }
    const bin = join(scratch, 'fake-bin');
    const calls = join(scratch, 'multipass.log');
    await mkdir(bin, { recursive: true });
    await writeFile(
      join(bin, 'multipass'),
      [
        '#!/bin/sh',
        `echo "$*" >> ${calls}`,
        'case "$1" in',
        `  info) [ -f ${bin}/launched ] ;;`,
        `  launch) touch ${bin}/launched ;;`,
        `  delete) rm -f ${bin}/launched ;;`,
        '  exec) cat > /dev/null ;;',
        'esac',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const provisioner = createNativeProvisioner({
      computes: { hook: createHookCompute({ env: { ...process.env, PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}` } }) },
    });
    const build = (transition: Transition, previousState: Buffer | null) =>
      provisioner.apply({
        directory,
        variableValues: [],
        log: () => undefined,
        signal: new AbortController().signal,
        transition,
        parameterValues: [{ name: 'cpus', value: '4' }],
        workspace: { id: 'ws-7', name: 'dev', owner: 'alice', owner_id: 'u-1', start_count: transition === 'start' ? 1 : 0 },
        accessUrl: 'http://127.0.0.1:7080',
        previousState,
      });
    const started = await build('start', null);
    assert.equal(started.resources[0]?.agents[0]?.name, 'main');
    const restarted = await build('start', (await build('stop', started.state)).state);
    await build('delete', (await build('stop', restarted.state)).state);
    const lines = (await readFile(calls, 'utf8')).trim().split('\n');
    assert.deepEqual(
      lines.filter((line) => !line.startsWith('info')).map((line) => line.split(' ').slice(0, 2).join(' ')),
      [
        'launch --name',
        'start cove-ws-7',
        'exec cove-ws-7',
        'exec cove-ws-7',
        'exec cove-ws-7',
        'stop cove-ws-7',
        'start cove-ws-7',
        'exec cove-ws-7',
        'exec cove-ws-7',
        'exec cove-ws-7',
        'stop cove-ws-7',
        'delete --purge',
      ],
    );
    assert.ok(lines.includes('launch --name cove-ws-7 --cpus 4 --memory 4G --disk 20G 24.04'));
  });
});

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function waitForExit(pid: number): Promise<void> {
  await waitFor(`pid ${pid} to exit`, async () => {
    try {
      process.kill(pid, 0);
      return undefined;
    } catch {
      return true;
    }
  });
}
