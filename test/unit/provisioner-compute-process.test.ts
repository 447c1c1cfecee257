import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ComputePartialFailure, type ComputeContext, type JsonValue } from '../../src/provisioner/native/compute.js';
import { toPlannedResource, type ResourceSpec } from '../../src/provisioner/native/expand-resources.js';
import { createNativeProvisioner } from '../../src/provisioner/native/native-provisioner.js';
import { createProcessCompute, scrubbedEnvironment } from '../../src/provisioner/native/process-compute.js';
import { ProvisionerError, type PlannedAgent, type ProvisionerLog, type Transition } from '../../src/provisioner/provisioner.js';

const scratch = await mkdtemp(join(tmpdir(), 'cove-process-'));
/** Every agent pid a test saw, so that nothing outlives the run even when a test fails. */
const seenPids = new Set<number>();
after(async () => {
  for (const pid of seenPids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
  await rm(scratch, { recursive: true, force: true });
});

/** An agent that records what it was started with, then waits to be stopped. */
const AGENT_SCRIPT = `
import { writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
if (process.env.IGNORE_SIGTERM) process.on('SIGTERM', () => {});
const child = process.env.SPAWN_CHILD ? spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }) : undefined;
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('COVE_') || name === 'KEEP_ME' || name === 'AGENT_VAR'));
writeFileSync(process.env.OUT_FILE, JSON.stringify({ pid: process.pid, childPid: child?.pid ?? null, cwd: process.cwd(), args: process.argv.slice(2), env }));
setInterval(() => {}, 1000);
`;
const agentScript = join(scratch, 'agent.mjs');
await writeFile(agentScript, AGENT_SCRIPT);
const AGENT_COMMAND = [process.execPath, agentScript, 'agent'];

const PROVISIONER_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  COVE_SESSION_TOKEN: 'session-secret',
  COVE_PG_CONNECTION_URL: 'postgres://user:pw@db/cove',
  COVE_EMAIL_SMTP_PASSWORD: 'smtp-secret',
  COVE_OIDC_CLIENT_SECRET: 'oidc-secret',
  COVE_AGENT_TOKEN: 'the-provisioner-own-token',
  KEEP_ME: 'kept',
};

interface AgentReport {
  readonly pid: number;
  readonly childPid: number | null;
  readonly cwd: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

let counter = 0;

function context(transition: Transition, logs: ProvisionerLog[] = [], signal = new AbortController().signal): ComputeContext {
  return {
    workspace: { id: 'ws-1', name: 'dev', owner: 'alice', owner_id: 'u-1', start_count: transition === 'start' ? 1 : 0 },
    transition,
    accessUrl: 'http://127.0.0.1:7080',
    templateDirectory: scratch,
    log: (line) => logs.push(line),
    signal,
  };
}

/** A process resource with one agent, its planned agents (with `token`) and where the agent reports. */
async function resource(
  token: string,
  extraEnv: Record<string, string> = {},
): Promise<{ spec: ResourceSpec; agents: PlannedAgent[]; out: string; dir: string }> {
  const dir = join(scratch, `ws${++counter}`, 'home');
  const out = join(scratch, `report${counter}.json`);
  const spec: ResourceSpec = {
    name: 'dev',
    type: 'process',
    agents: [{ name: 'main', dir, env: { OUT_FILE: out, AGENT_VAR: 'from-template', ...extraEnv } }],
  };
  return { spec, agents: withToken(spec, token), out, dir };
}

function withToken(spec: ResourceSpec, token: string): PlannedAgent[] {
  return toPlannedResource(spec).agents.map((agent) => ({ ...agent, auth_token: token }));
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function report(path: string): Promise<AgentReport> {
  // The file can exist before the agent has finished writing it: wait for a whole report.
  const parsed = await waitFor(`the agent report ${path}`, () =>
    readFile(path, 'utf8').then(
      (text) => {
        try {
          return JSON.parse(text) as AgentReport;
        } catch {
          return undefined;
        }
      },
      () => undefined,
    ),
  );
  seenPids.add(parsed.pid);
  return parsed;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid: number): Promise<void> {
  await waitFor(`pid ${pid} to exit`, () => (isAlive(pid) ? undefined : true));
}

function agentsOf(
  state: JsonValue,
): { pid: number; identity: string | null; token_sha256: string; name: string; dir: string; log: string }[] {
  return (state as { agents: { pid: number; identity: string | null; token_sha256: string; name: string; dir: string; log: string }[] })
    .agents;
}

describe('process compute', () => {
  it('starts the agent detached in its directory with the access URL, its token and no server secrets', async () => {
    const compute = createProcessCompute({ agentCommand: AGENT_COMMAND, env: PROVISIONER_ENV });
    const { spec, agents, out, dir } = await resource('token-1');
    const logs: ProvisionerLog[] = [];
    const state = await compute.start({ resource: spec, agents, previous: undefined, context: context('start', logs) });
    const agent = await report(out);
    assert.equal(agent.cwd, dir, 'runs in the agent dir, created when missing');
    assert.deepEqual(agent.args, ['agent']);
    assert.equal(agent.env['COVE_AGENT_URL'], 'http://127.0.0.1:7080');
    assert.equal(agent.env['COVE_AGENT_TOKEN'], 'token-1');
    assert.equal(agent.env['AGENT_VAR'], 'from-template');
    assert.equal(agent.env['KEEP_ME'], 'kept');
    for (const secret of ['COVE_SESSION_TOKEN', 'COVE_PG_CONNECTION_URL', 'COVE_EMAIL_SMTP_PASSWORD', 'COVE_OIDC_CLIENT_SECRET']) {
      assert.equal(agent.env[secret], undefined, `${secret} must not reach the agent`);
    }
    const [entry] = agentsOf(state);
    assert.equal(entry?.pid, agent.pid);
    assert.equal(entry?.name, 'main');
    assert.equal(entry?.log, join(dir, '.cove-agent-main.log'));
    assert.ok(existsSync(join(dir, '.cove-agent-main.log')));
    assert.ok(!JSON.stringify(state).includes('token-1'), 'the state keeps a hash of the token, not the token');
    if (process.platform === 'linux') assert.match(entry?.identity ?? '', /^linux:[0-9a-f-]+:\d+$/);
    assert.ok(
      logs.some((line) => line.level === 'info' && line.stage === 'Starting workspace' && line.output.includes(`pid ${agent.pid}`)),
    );
    // Its own process group: a stop can reach whatever it starts.
    assert.ok(isAlive(-agent.pid), 'the agent leads a process group of its own');

    await compute.stop({ resource: spec, previous: state, context: context('stop') });
    await waitForExit(agent.pid);
  });

  it('does not start a second agent for the same token, restarts it for a new one, and stops it from a fresh instance', async () => {
    const { spec, agents, out } = await resource('token-a');
    const first = await createProcessCompute({ agentCommand: AGENT_COMMAND }).start({
      resource: spec,
      agents,
      previous: undefined,
      context: context('start'),
    });
    const original = await report(out);
    await rm(out);

    const logs: ProvisionerLog[] = [];
    const again = await createProcessCompute({ agentCommand: AGENT_COMMAND }).start({
      resource: spec,
      agents,
      previous: first,
      context: context('start', logs),
    });
    assert.deepEqual(again, first, 'same token, same process');
    assert.ok(logs.some((line) => /already running/.test(line.output)));
    assert.equal(existsSync(out), false, 'no second agent started');
    assert.ok(isAlive(original.pid));

    const rebuilt = await createProcessCompute({ agentCommand: AGENT_COMMAND }).start({
      resource: spec,
      agents: withToken(spec, 'token-b'),
      previous: again,
      context: context('start'),
    });
    const replacement = await report(out);
    assert.notEqual(replacement.pid, original.pid);
    assert.equal(replacement.env['COVE_AGENT_TOKEN'], 'token-b');
    await waitForExit(original.pid);

    // A restarted provisioner has only the state, which went through JSON.
    const stopped = await createProcessCompute().stop({
      resource: undefined,
      previous: JSON.parse(JSON.stringify(rebuilt)) as JsonValue,
      context: context('stop'),
    });
    await waitForExit(replacement.pid);
    assert.deepEqual(stopped, { agents: [] });
  });

  it('stops the whole process group, and sends SIGKILL to an agent that ignores SIGTERM', async () => {
    const compute = createProcessCompute({ agentCommand: AGENT_COMMAND, stopTimeoutMs: 300 });
    const { spec, agents, out } = await resource('token-k', { IGNORE_SIGTERM: '1', SPAWN_CHILD: '1' });
    const state = await compute.start({ resource: spec, agents, previous: undefined, context: context('start') });
    const agent = await report(out);
    assert.ok(agent.childPid !== null && isAlive(agent.childPid));
    const logs: ProvisionerLog[] = [];
    await compute.delete({ previous: state, context: context('delete', logs) });
    await waitForExit(agent.pid);
    await waitForExit(agent.childPid);
    assert.ok(
      logs.some((line) => line.level === 'warn' && /SIGKILL/.test(line.output)),
      JSON.stringify(logs),
    );
  });

  it(
    'treats an agent that is already gone as stopped, and never signals a recycled pid',
    { skip: process.platform !== 'linux' && 'start identities are read from /proc' },
    async () => {
      const compute = createProcessCompute();
      const stranger = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', detached: true });
      assert.ok(stranger.pid);
      seenPids.add(stranger.pid);
      try {
        const recycled = {
          agents: [{ name: 'main', pid: stranger.pid, identity: 'linux:another-boot:1', token_sha256: 'x', dir: scratch, log: '' }],
        };
        const logs: ProvisionerLog[] = [];
        await compute.stop({ resource: undefined, previous: recycled, context: context('stop', logs) });
        assert.ok(isAlive(stranger.pid), 'a process that only shares the pid is left alone');
        assert.ok(logs.some((line) => /no longer running/.test(line.output)));
      } finally {
        stranger.kill('SIGKILL');
      }
      const gone = { agents: [{ name: 'main', pid: 2 ** 22 - 7, identity: null, token_sha256: 'x', dir: scratch, log: '' }] };
      assert.deepEqual(await compute.stop({ resource: undefined, previous: gone, context: context('stop') }), { agents: [] });
    },
  );

  it('fails clearly without an agent command, in preflight and in start', async () => {
    const compute = createProcessCompute();
    const { spec, agents } = await resource('t');
    await assert.rejects(
      compute.preflight?.(context('start')) ?? Promise.resolve(),
      (error: unknown) => error instanceof ProvisionerError && /^process compute: no agent command is configured/.test(error.message),
    );
    await compute.preflight?.(context('stop'));
    await assert.rejects(
      compute.start({ resource: spec, agents, previous: undefined, context: context('start') }),
      (error: unknown) => error instanceof ProvisionerError && /no agent command/.test(error.message),
    );
  });

  it('reports a command that cannot be started, keeping what already runs in the state', async () => {
    const compute = createProcessCompute({ agentCommand: [join(scratch, 'no-such-binary')] });
    const { spec, agents } = await resource('t');
    const failure = await compute.start({ resource: spec, agents, previous: undefined, context: context('start') }).then(
      () => assert.fail('expected a failure'),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof ComputePartialFailure);
    assert.ok(failure.cause instanceof ProvisionerError);
    assert.match(failure.cause.message, /cannot start agent "main" with .*no-such-binary: spawn .* ENOENT/);
    assert.deepEqual(failure.partial, { agents: [] });
  });

  it('drops exactly the server secrets from the environment', () => {
    assert.deepEqual(
      scrubbedEnvironment({
        PATH: '/bin',
        COVE_URL: 'u',
        COVE_SESSION_TOKEN: 's',
        COVE_PG_CONNECTION_URL: 'p',
        COVE_X_SECRET: 'x',
        COVE_Y_PASSWORD: 'y',
        COVE_VERBOSE: '1',
        MY_SECRET: 'm',
      }),
      { PATH: '/bin', COVE_URL: 'u', COVE_VERBOSE: '1', MY_SECRET: 'm' },
    );
  });
});

describe('native provisioner with the process compute', () => {
  it('runs the local-shell shape: directory, then the agent in it; stop ends it, delete removes the directory', async () => {
    const base = join(scratch, 'native');
    const template = join(scratch, 'native-template');
    await mkdir(template, { recursive: true });
    const out = join(scratch, 'native-report.json');
    await writeFile(
      join(template, 'template.yaml'),
      [
        'resources:',
        `  - { name: home, type: directory, path: "${base}/\${{ workspace.owner }}/\${{ workspace.name }}" }`,
        '  - name: shell',
        '    type: process',
        '    agents:',
        `      - { name: main, dir: "\${{ resources.home.path }}", env: { OUT_FILE: "${out}" } }`,
      ].join('\n'),
    );
    const build = (transition: Transition, previousState: Buffer | null) =>
      createNativeProvisioner({ agentCommand: AGENT_COMMAND }).apply({
        directory: template,
        variableValues: [],
        log: () => undefined,
        signal: new AbortController().signal,
        transition,
        parameterValues: [],
        workspace: { id: 'ws-9', name: 'dev', owner: 'alice', owner_id: 'u-1', start_count: transition === 'start' ? 1 : 0 },
        accessUrl: 'http://127.0.0.1:7080',
        previousState,
      });
    const started = await build('start', null);
    const agent = await report(out);
    assert.equal(agent.cwd, join(base, 'alice', 'dev'));
    assert.equal(agent.env['COVE_AGENT_TOKEN'], started.resources[1]?.agents[0]?.auth_token);
    const stopped = await build('stop', started.state);
    await waitForExit(agent.pid);
    assert.ok(existsSync(join(base, 'alice', 'dev')));
    await build('delete', stopped.state);
    assert.equal(existsSync(join(base, 'alice', 'dev')), false);
  });
});
