import assert from 'node:assert/strict';
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ComputePartialFailure, type ComputeContext } from '../../src/provisioner/native/compute.js';
import { CONTAINER_HOST_ROOT, containerAgentCommand, createDockerCompute } from '../../src/provisioner/native/docker-compute.js';
import { toPlannedResource, type ResourceSpec } from '../../src/provisioner/native/expand-resources.js';
import { exampleFiles, findTemplateExample } from '../../src/provisioner/native/examples/index.js';
import { createNativeProvisioner } from '../../src/provisioner/native/native-provisioner.js';
import { ProvisionerError, type PlannedAgent, type ProvisionerLog, type Transition } from '../../src/provisioner/provisioner.js';

const scratch = await realpath(await mkdtemp(join(tmpdir(), 'cove-docker-')));
after(() => rm(scratch, { recursive: true, force: true }));

/** A stand-in package with a `bin/cove` script, as the daemon's agent command names it. */
const packageDir = join(scratch, 'cove-package');
await mkdir(join(packageDir, 'bin'), { recursive: true });
await mkdir(join(packageDir, 'dist'), { recursive: true });
await writeFile(join(packageDir, 'package.json'), '{}');
await writeFile(join(packageDir, 'bin', 'cove'), '#!/usr/bin/env node\n');
const nodePath = await realpath(process.execPath);
const AGENT_COMMAND = [process.execPath, join(packageDir, 'bin', 'cove'), 'agent'];

/** An empty directory: a PATH with no docker on it. */
const emptyBin = join(scratch, 'empty-bin');
await mkdir(emptyBin);

function context(transition: Transition, logs: ProvisionerLog[] = []): ComputeContext {
  return {
    workspace: {
      id: '6f1c2f0e-0000-4000-8000-000000000001',
      name: 'dev',
      owner: 'alice',
      owner_id: 'u-1',
      start_count: transition === 'start' ? 1 : 0,
    },
    transition,
    accessUrl: 'http://127.0.0.1:7080',
    templateDirectory: scratch,
    log: (line) => logs.push(line),
    signal: new AbortController().signal,
  };
}

const SPEC: ResourceSpec = {
  name: 'dev',
  type: 'docker',
  image: 'ubuntu:24.04',
  volumes: ['cove-6f1c2f0e-0000-4000-8000-000000000001-home:/home/cove', '/srv/shared:/shared:ro'],
  env: { HOME: '/home/cove' },
  agents: [{ name: 'main', dir: '/home/cove', env: { EDITOR: 'vi' } }],
};

function agentsOf(spec: ResourceSpec, token: string): PlannedAgent[] {
  return toPlannedResource(spec).agents.map((agent) => ({ ...agent, auth_token: token }));
}

async function whichDocker(): Promise<string | undefined> {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    const candidate = join(dir, 'docker');
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

const NO_ENGINE = /^docker compute: no Docker engine is reachable \((.*)\)\. Install Docker or set DOCKER_HOST\.$/;

describe('docker compute without an engine', () => {
  it('says so when there is no docker binary, before and during a start', async () => {
    const compute = createDockerCompute({ agentCommand: AGENT_COMMAND, env: { PATH: emptyBin } });
    await assert.rejects(
      compute.preflight?.(context('start')) ?? Promise.resolve(),
      (error: unknown) => error instanceof ProvisionerError && NO_ENGINE.exec(error.message)?.[1] === 'no "docker" binary on PATH',
    );
    const failure = await compute
      .start({ resource: SPEC, agents: agentsOf(SPEC, 't'), previous: undefined, context: context('start') })
      .then(
        () => assert.fail('expected a failure'),
        (error: unknown) => error,
      );
    assert.ok(failure instanceof ComputePartialFailure && failure.cause instanceof ProvisionerError);
    assert.match(failure.cause.message, NO_ENGINE);
    assert.deepEqual(failure.partial, { container: null, volumes: [] });
  });

  it('says so when the engine does not answer', async (t) => {
    if ((await whichDocker()) === undefined) {
      t.skip('no docker binary on this machine');
      return;
    }
    const { DOCKER_CONTEXT: _context, ...env } = process.env;
    const compute = createDockerCompute({ agentCommand: AGENT_COMMAND, env: { ...env, DOCKER_HOST: 'unix:///nonexistent.sock' } });
    await assert.rejects(compute.preflight?.(context('start')) ?? Promise.resolve(), (error: unknown) => {
      assert.ok(error instanceof ProvisionerError);
      const detail = NO_ENGINE.exec(error.message)?.[1] ?? '';
      assert.match(detail, /^docker version: .*nonexistent\.sock/, error.message);
      return true;
    });
  });

  it('needs an agent command to start, and no engine to stop what never started', async () => {
    await assert.rejects(
      createDockerCompute({ env: { PATH: emptyBin } }).preflight?.(context('start')) ?? Promise.resolve(),
      /^ProvisionerError: docker compute: no agent command is configured/,
    );
    const compute = createDockerCompute({ env: { PATH: emptyBin } });
    await compute.preflight?.(context('stop'));
    assert.deepEqual(await compute.stop({ resource: SPEC, previous: { container: null, volumes: [] }, context: context('stop') }), {
      container: null,
      volumes: [],
    });
    await compute.delete({ previous: { container: null, volumes: [] }, context: context('delete') });
    await assert.rejects(
      compute.delete({ previous: { container: null, volumes: ['v'] }, context: context('delete') }),
      (error: unknown) => error instanceof ProvisionerError && NO_ENGINE.test(error.message),
    );
  });
});

describe('docker compute with a stand-in docker CLI', () => {
  /** Records each call (arguments and the token it received) and answers like an engine with nothing in it. */
  async function fakeDocker(): Promise<{ env: NodeJS.ProcessEnv; calls: () => Promise<string[]> }> {
    const bin = await mkdtemp(join(scratch, 'bin-'));
    const log = join(bin, 'calls.log');
    await writeFile(
      join(bin, 'docker'),
      [
        '#!/bin/sh',
        `printf '%s|token=%s\\n' "$*" "\${COVE_AGENT_TOKEN:-}" >> ${log}`,
        'case "$1 $2" in',
        '  "version "*) echo 28.2.2 ;;',
        '  "volume inspect") echo "Error response from daemon: get x: no such volume" >&2; exit 1 ;;',
        '  "volume create") echo "$4" ;;',
        '  "inspect "*) echo "Error: No such object: x" >&2; exit 1 ;;',
        '  "run "*) echo "Unable to find image locally" >&2; echo 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef ;;',
        '  "create "*) echo 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef ;;',
        '  "cp "*) [ -z "${FAIL_CP:-}" ] || { echo "Error: copy failed" >&2; exit 1; }; echo ok ;;',
        '  *) echo ok ;;',
        'esac',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    return {
      env: { PATH: `${bin}${delimiter}/usr/bin${delimiter}/bin`, COVE_SESSION_TOKEN: 'secret' },
      calls: async () => (await readFile(log, 'utf8')).trim().split('\n'),
    };
  }

  it('runs the agent in a labelled container on the host network, with its files mounted, then stops and deletes it', async () => {
    const docker = await fakeDocker();
    const compute = createDockerCompute({ agentCommand: AGENT_COMMAND, env: docker.env });
    const logs: ProvisionerLog[] = [];
    await compute.preflight?.(context('start'));
    const state = await compute.start({
      resource: SPEC,
      agents: agentsOf(SPEC, 'token-1'),
      previous: undefined,
      context: context('start', logs),
    });
    const name = 'cove-6f1c2f0e-0000-4000-8000-000000000001-dev';
    const id = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
    assert.deepEqual(state, {
      container: {
        id,
        name,
        image: 'ubuntu:24.04',
        token_sha256: (state as { container: { token_sha256: string } }).container.token_sha256,
      },
      volumes: ['cove-6f1c2f0e-0000-4000-8000-000000000001-home'],
    });
    assert.ok(!JSON.stringify(state).includes('token-1'));
    const run = (await docker.calls()).find((call) => call.startsWith('run '));
    assert.equal(
      run,
      [
        'run --detach --init',
        `--name ${name}`,
        '--network host',
        '--hostname dev',
        '--label cove.workspace_id=6f1c2f0e-0000-4000-8000-000000000001 --label cove.resource=dev',
        '--volume cove-6f1c2f0e-0000-4000-8000-000000000001-home:/home/cove --volume /srv/shared:/shared:ro',
        '--env HOME=/home/cove --env EDITOR=vi',
        `--volume ${nodePath}:${CONTAINER_HOST_ROOT}${nodePath}:ro --volume ${packageDir}:${CONTAINER_HOST_ROOT}${packageDir}:ro`,
        '--env COVE_AGENT_URL=http://127.0.0.1:7080 --env COVE_AGENT_TOKEN',
        '--workdir /home/cove',
        `--entrypoint ${CONTAINER_HOST_ROOT}${nodePath} ubuntu:24.04 ${CONTAINER_HOST_ROOT}${packageDir}/bin/cove agent|token=token-1`,
      ].join(' '),
      'the token travels in the environment of the CLI, not on its command line',
    );
    assert.ok(
      (await docker.calls()).every((call) => call.startsWith('run ') || call.endsWith('|token=')),
      'only docker run sees the token',
    );
    assert.ok(
      logs.some((line) => line.output === 'Unable to find image locally'),
      'pull progress is logged',
    );
    assert.ok(logs.some((line) => line.output.startsWith(`Started container ${name}`)));

    const stopped = await compute.stop({ resource: SPEC, previous: state, context: context('stop') });
    assert.deepEqual(stopped, { container: null, volumes: ['cove-6f1c2f0e-0000-4000-8000-000000000001-home'] });
    await compute.delete({ previous: stopped, context: context('delete') });
    const tail = (await docker.calls()).slice(-4).map((call) => call.split('|')[0]);
    assert.deepEqual(tail, [
      `stop --time 10 ${id}`,
      `rm --force --volumes ${id}`,
      'version --format {{.Server.Version}}',
      'volume rm --force cove-6f1c2f0e-0000-4000-8000-000000000001-home',
    ]);
  });

  it('copies the agent executable into the container with COVE_DOCKER_COPY_AGENT=1, mounting nothing', async () => {
    const docker = await fakeDocker();
    const executable = join(packageDir, 'bin', 'cove');
    const compute = createDockerCompute({ agentCommand: [executable, 'agent'], env: { ...docker.env, COVE_DOCKER_COPY_AGENT: '1' } });
    await compute.start({ resource: SPEC, agents: agentsOf(SPEC, 'token-3'), previous: undefined, context: context('start') });
    const id = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
    const calls = (await docker.calls()).filter((call) => /^(create|cp|start|run) /.test(call));
    assert.equal(calls.length, 3, calls.join('\n'));
    assert.match(calls[0] ?? '', /^create --init --name cove-\S+-dev --network host /);
    assert.match(calls[0] ?? '', / --entrypoint \/\.cove-agent ubuntu:24\.04 agent\|token=token-3$/);
    assert.doesNotMatch(calls[0] ?? '', new RegExp(CONTAINER_HOST_ROOT));
    assert.equal(calls[1], `cp ${executable} ${id}:/.cove-agent|token=`);
    assert.equal(calls[2], `start ${id}|token=`);

    const failing = await fakeDocker();
    const broken = createDockerCompute({
      agentCommand: [executable, 'agent'],
      env: { ...failing.env, COVE_DOCKER_COPY_AGENT: '1', FAIL_CP: '1' },
    });
    await assert.rejects(
      broken.start({ resource: SPEC, agents: agentsOf(SPEC, 'token-4'), previous: undefined, context: context('start') }),
      /docker cp .* failed/,
    );
    const after = (await failing.calls()).map((call) => call.split('|')[0]);
    assert.ok(after.includes(`rm --force --volumes ${id}`), 'the created container is removed');
    assert.ok(!after.some((call) => call?.startsWith('start ')));
  });

  it('replaces the container of a previous build and refuses more than one agent', async () => {
    const docker = await fakeDocker();
    const compute = createDockerCompute({ agentCommand: AGENT_COMMAND, env: docker.env });
    const previous = { container: { id: 'abc123abc123', name: 'old', image: 'ubuntu:24.04', token_sha256: 'other' }, volumes: ['kept'] };
    const state = await compute.start({ resource: SPEC, agents: agentsOf(SPEC, 'token-2'), previous, context: context('start') });
    assert.ok((await docker.calls()).some((call) => call.startsWith('rm --force --volumes abc123abc123')));
    assert.deepEqual((state as { volumes: string[] }).volumes, ['kept', 'cove-6f1c2f0e-0000-4000-8000-000000000001-home']);

    const two: ResourceSpec = { ...SPEC, agents: [{ name: 'a' }, { name: 'b' }] };
    await assert.rejects(
      compute.start({ resource: two, agents: agentsOf(two, 't'), previous: undefined, context: context('start') }),
      (error: unknown) => {
        assert.ok(error instanceof ComputePartialFailure);
        assert.match(error.message, /resource "dev" declares 2 agents; a container runs one/);
        return true;
      },
    );
  });

  it('runs the docker example through the native provisioner', async () => {
    const example = findTemplateExample('docker');
    assert.ok(example);
    const directory = await mkdtemp(join(scratch, 'example-'));
    for (const file of exampleFiles(example)) await writeFile(join(directory, file.path), file.content, { mode: file.mode });
    const docker = await fakeDocker();
    const provisioner = createNativeProvisioner({
      agentCommand: AGENT_COMMAND,
      computes: { docker: createDockerCompute({ agentCommand: AGENT_COMMAND, env: docker.env }) },
    });
    const workspace = { id: '6f1c2f0e-0000-4000-8000-000000000002', name: 'dev', owner: 'alice', owner_id: 'u-1', start_count: 1 };
    const input = {
      directory,
      variableValues: [],
      log: () => undefined,
      signal: new AbortController().signal,
      parameterValues: [{ name: 'image', value: 'debian:12' }],
      workspace,
      accessUrl: 'http://127.0.0.1:7080',
    };
    const started = await provisioner.apply({ ...input, transition: 'start', previousState: null });
    const run = (await docker.calls()).find((call) => call.startsWith('run ')) ?? '';
    assert.match(run, / --volume cove-6f1c2f0e-0000-4000-8000-000000000002-home:\/home\/cove /);
    assert.match(run, / --workdir \/home\/cove --entrypoint \S+ debian:12 \S+\/bin\/cove agent\|token=[0-9a-f-]{36}$/);
    const stopped = await provisioner.apply({ ...input, transition: 'stop', previousState: started.state });
    await provisioner.apply({ ...input, transition: 'delete', previousState: stopped.state });
    assert.equal((await docker.calls()).at(-1), 'volume rm --force cove-6f1c2f0e-0000-4000-8000-000000000002-home|token=');
  });
});

describe('containerAgentCommand', () => {
  it('mounts the executable and the package of each file argument under the container root', async () => {
    const inside = await containerAgentCommand([process.execPath, join(packageDir, 'bin', 'cove'), 'agent']);
    assert.deepEqual(inside, {
      mounts: [`${nodePath}:${CONTAINER_HOST_ROOT}${nodePath}:ro`, `${packageDir}:${CONTAINER_HOST_ROOT}${packageDir}:ro`],
      entrypoint: `${CONTAINER_HOST_ROOT}${nodePath}`,
      args: [`${CONTAINER_HOST_ROOT}${packageDir}/bin/cove`, 'agent'],
    });
    await assert.rejects(containerAgentCommand([join(scratch, 'missing')]), /the agent command .*missing does not exist on this host/);
  });
});
