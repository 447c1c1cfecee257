import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { AgentRequestError } from '../../src/agent/agent-request-error.js';
import { createContainerLister, devcontainerId } from '../../src/agent/containers.js';
import type { WorkspaceAgentContainersResponse } from '../../src/sdk/wire/relay-protocol.js';

const PROJECT = '/home/coder/project';
const CONFIG = '/home/coder/project/.devcontainer/devcontainer.json';

/** What `docker inspect` prints for the canned containers (plus a test-run devcontainer). */
const INSPECT = [
  {
    Id: 'aaa111',
    Name: '/db',
    Created: '2024-05-01T10:00:00.123456789Z',
    Config: { Image: 'postgres:16', Labels: null },
    State: { Running: false, ExitCode: 137, Error: 'OOM killed' },
    Mounts: [{ Source: '/var/lib/docker/volumes/pg/_data', Destination: '/var/lib/postgresql/data' }],
    NetworkSettings: { Ports: {} },
  },
  {
    Id: 'bbb222',
    Name: '/festive_dev',
    Created: '2024-05-02T10:00:00Z',
    Config: {
      Image: 'mcr.microsoft.com/devcontainers/base:ubuntu',
      Labels: { 'devcontainer.local_folder': PROJECT, 'devcontainer.config_file': CONFIG },
    },
    State: { Running: true, ExitCode: 0, Error: '' },
    Mounts: [{ Source: PROJECT, Destination: '/workspaces/project' }],
    NetworkSettings: {
      Ports: {
        '8080/tcp': [
          { HostIp: '0.0.0.0', HostPort: '8080' },
          { HostIp: '::', HostPort: '8080' },
        ],
        '9090/tcp': [{ HostIp: '127.0.0.1', HostPort: 'not-a-port' }],
        '5353/udp': [{ HostIp: '192.168.1.5', HostPort: '15353' }],
        '6000/tcp': null,
      },
    },
  },
  {
    Id: 'ccc333',
    Name: '/test_run',
    Created: '2024-05-03T10:00:00Z',
    Config: { Image: 'alpine', Labels: { 'devcontainer.local_folder': '/tmp/test', 'devcontainer.is_test_run': 'true' } },
    State: { Running: false, ExitCode: 0 },
    Mounts: null,
    NetworkSettings: { Ports: null },
  },
];

/**
 * Fake `docker` and `devcontainer` executables in a temporary directory, steered by files next to
 * them: `ps.out` / `ps.err` / `ps.hang`, `inspect.out` / `inspect.err`; `up.fail`, and `release`,
 * which `devcontainer up` waits for (10 s at most) so a test can watch the `starting` state.
 */
function fakeTools(): { dir: string; docker: string; devcontainer: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cove-containers-'));
  dirs.push(dir);
  const docker = join(dir, 'docker');
  writeFileSync(
    docker,
    `#!/bin/sh
dir="$(dirname "$0")"
case "$1" in
  ps)
    [ -f "$dir/ps.hang" ] && exec sleep 30
    if [ -f "$dir/ps.err" ]; then cat "$dir/ps.err" >&2; exit 1; fi
    [ -f "$dir/ps.out" ] && cat "$dir/ps.out"
    exit 0 ;;
  inspect)
    shift
    echo "$@" > "$dir/inspect.args"
    cat "$dir/inspect.out"
    if [ -f "$dir/inspect.err" ]; then cat "$dir/inspect.err" >&2; exit 1; fi
    exit 0 ;;
esac
exit 2
`,
  );
  const devcontainer = join(dir, 'devcontainer');
  writeFileSync(
    devcontainer,
    `#!/bin/sh
dir="$(dirname "$0")"
echo "$@" > "$dir/up.args"
echo "[1 ms] @devcontainers/cli 0.80.0. Node.js v20."
i=0
while [ ! -f "$dir/release" ] && [ "$i" -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
if [ -f "$dir/up.fail" ]; then
  echo "Error: build failed" >&2
  echo '{"outcome":"error","message":"Command failed: docker build","description":"An error occurred building the image."}'
  exit 1
fi
echo '{"outcome":"success","containerId":"bbb222","remoteUser":"vscode","remoteWorkspaceFolder":"/workspaces/project"}'
`,
  );
  chmodSync(docker, 0o755);
  chmodSync(devcontainer, 0o755);
  return { dir, docker, devcontainer };
}

const dirs: string[] = [];

/** Docker lists the canned containers, and one more id that is gone by the time it is inspected. */
function cannedDocker(dir: string): void {
  writeFileSync(join(dir, 'ps.out'), 'aaa111\nbbb222\nccc333\ngone999\n');
  writeFileSync(join(dir, 'inspect.out'), JSON.stringify(INSPECT, null, 2));
  writeFileSync(join(dir, 'inspect.err'), 'Error: No such object: gone999\n');
}

async function until(
  list: () => Promise<WorkspaceAgentContainersResponse>,
  done: (response: WorkspaceAgentContainersResponse) => boolean,
): Promise<WorkspaceAgentContainersResponse> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await list();
    if (done(response)) return response;
    if (Date.now() > deadline) assert.fail(`condition not met; last answer: ${JSON.stringify(response.devcontainers)}`);
    await delay(20);
  }
}

describe('agent containers', () => {
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('maps docker inspect output to containers and devcontainers', async () => {
    const tools = fakeTools();
    cannedDocker(tools.dir);
    const response = await createContainerLister({ docker: tools.docker, devcontainerCli: tools.devcontainer }).list();
    assert.equal(readFileSync(join(tools.dir, 'inspect.args'), 'utf8').trim(), 'aaa111 bbb222 ccc333 gone999');

    const [db, dev, testRun] = response.containers;
    assert.equal(response.containers.length, 3);
    assert.deepEqual(db, {
      created_at: '2024-05-01T10:00:00.123456789Z',
      id: 'aaa111',
      image: 'postgres:16',
      name: 'db',
      status: 'exited with code 137: OOM killed',
      labels: {},
      volumes: { '/var/lib/docker/volumes/pg/_data': '/var/lib/postgresql/data' },
      ports: [],
      running: false,
    });
    assert.deepEqual(dev, {
      created_at: '2024-05-02T10:00:00Z',
      id: 'bbb222',
      image: 'mcr.microsoft.com/devcontainers/base:ubuntu',
      name: 'festive_dev',
      status: 'running',
      labels: { 'devcontainer.local_folder': PROJECT, 'devcontainer.config_file': CONFIG },
      volumes: { [PROJECT]: '/workspaces/project' },
      ports: [
        { host_ip: '192.168.1.5', host_port: 15353, network: 'udp', port: 5353 },
        { host_ip: '0.0.0.0', host_port: 8080, network: 'tcp', port: 8080 },
      ],
      running: true,
    });
    assert.equal(testRun?.status, 'exited successfully');
    assert.equal(testRun?.name, 'test_run');

    // The vanished container is no warning; the invalid host port is.
    assert.equal(response.warnings.length, 1);
    assert.match(response.warnings[0] ?? '', /invalid host port "not-a-port"/);

    assert.deepEqual(response.devcontainers, [
      {
        id: devcontainerId(PROJECT),
        name: 'project',
        config_path: CONFIG,
        workspace_folder: PROJECT,
        status: 'running',
        dirty: false,
        container: dev,
      },
    ]);
    assert.match(devcontainerId(PROJECT), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(devcontainerId(PROJECT), devcontainerId(PROJECT));
    assert.notEqual(devcontainerId(PROJECT), devcontainerId('/home/coder/other'));
  });

  it('skips docker inspect when there are no containers', async () => {
    const tools = fakeTools();
    const response = await createContainerLister({ docker: tools.docker }).list();
    assert.deepEqual(response, { containers: [], devcontainers: [], warnings: [] });
    assert.equal(existsSync(join(tools.dir, 'inspect.args')), false);
  });

  it('answers empty lists with a warning when the docker engine is not reachable', async () => {
    const tools = fakeTools();
    writeFileSync(
      join(tools.dir, 'ps.err'),
      'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n',
    );
    const response = await createContainerLister({ docker: tools.docker }).list();
    assert.deepEqual(response, {
      containers: [],
      devcontainers: [],
      warnings: ['docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?'],
    });
  });

  it('answers empty lists with a warning when docker is not installed', async () => {
    const tools = fakeTools();
    const response = await createContainerLister({ docker: join(tools.dir, 'no-such-docker') }).list();
    assert.deepEqual(response.containers, []);
    assert.deepEqual(response.devcontainers, []);
    assert.equal(response.warnings.length, 1);
    assert.match(response.warnings[0] ?? '', /^the docker CLI is not installed on this workspace/);
  });

  it('answers empty lists with a warning when docker does not answer in time', async () => {
    const tools = fakeTools();
    writeFileSync(join(tools.dir, 'ps.hang'), '');
    const response = await createContainerLister({ docker: tools.docker, timeoutMs: 200 }).list();
    assert.deepEqual(response, { containers: [], devcontainers: [], warnings: ['docker ps did not answer within the time limit'] });
  });

  it('refuses to recreate an unknown devcontainer with a 404', async () => {
    const tools = fakeTools();
    cannedDocker(tools.dir);
    const lister = createContainerLister({ docker: tools.docker, devcontainerCli: tools.devcontainer });
    await assert.rejects(lister.recreate('00000000-0000-0000-0000-000000000000'), (error: unknown) => {
      assert.ok(error instanceof AgentRequestError);
      assert.equal(error.status, 404);
      assert.equal(error.message, 'Devcontainer not found.');
      assert.match(error.detail, /00000000-0000-0000-0000-000000000000/);
      return true;
    });
  });

  it('recreates a devcontainer: starting (409 meanwhile), then running', async () => {
    const tools = fakeTools();
    cannedDocker(tools.dir);
    const logs: string[] = [];
    const lister = createContainerLister({ docker: tools.docker, devcontainerCli: tools.devcontainer, onLog: (line) => logs.push(line) });
    const id = devcontainerId(PROJECT);

    // A recreate before any list looks docker up first.
    assert.deepEqual(await lister.recreate(id), { name: 'project' });
    const starting = (await lister.list()).devcontainers[0];
    assert.equal(starting?.status, 'starting');
    assert.equal(starting?.container, undefined);
    await assert.rejects(lister.recreate(id), (error: unknown) => {
      assert.ok(error instanceof AgentRequestError);
      assert.equal(error.status, 409);
      assert.equal(error.message, 'Unable to recreate transitioning devcontainer');
      return true;
    });

    writeFileSync(join(tools.dir, 'release'), '');
    const done = await until(
      () => lister.list(),
      (response) => response.devcontainers[0]?.status !== 'starting',
    );
    const devcontainer = done.devcontainers[0];
    assert.equal(devcontainer?.status, 'running');
    assert.equal(devcontainer?.dirty, false);
    assert.equal(devcontainer?.error, undefined);
    assert.equal(devcontainer?.container?.id, 'bbb222');
    assert.equal(
      readFileSync(join(tools.dir, 'up.args'), 'utf8').trim(),
      `up --workspace-folder ${PROJECT} --config ${CONFIG} --remove-existing-container`,
    );
    assert.ok(
      logs.some((line) => line.includes('@devcontainers/cli')),
      logs.join('\n'),
    );
    assert.ok(
      logs.some((line) => line.includes('"outcome":"success"')),
      logs.join('\n'),
    );
  });

  it('ends a failed recreate in error, with the reason, and allows another try', async () => {
    const tools = fakeTools();
    cannedDocker(tools.dir);
    writeFileSync(join(tools.dir, 'up.fail'), '');
    writeFileSync(join(tools.dir, 'release'), '');
    const logs: string[] = [];
    const lister = createContainerLister({ docker: tools.docker, devcontainerCli: tools.devcontainer, onLog: (line) => logs.push(line) });
    const id = devcontainerId(PROJECT);
    await lister.list();
    await lister.recreate(id);
    const failed = await until(
      () => lister.list(),
      (response) => response.devcontainers[0]?.status !== 'starting',
    );
    const devcontainer = failed.devcontainers[0];
    assert.equal(devcontainer?.status, 'error');
    assert.match(devcontainer?.error ?? '', /exited with code 1: Command failed: docker build/);
    assert.ok(logs.includes('Error: build failed'), logs.join('\n'));
    // The old container docker still shows does not hide the failure.
    assert.equal((await lister.list()).devcontainers[0]?.status, 'error');

    // An error is not transitioning: it may be recreated again.
    rmSync(join(tools.dir, 'up.fail'));
    await lister.recreate(id);
    const recovered = await until(
      () => lister.list(),
      (response) => response.devcontainers[0]?.status !== 'starting',
    );
    assert.equal(recovered.devcontainers[0]?.status, 'running');
    assert.equal(recovered.devcontainers[0]?.error, undefined);
  });

  it('ends a recreate in error when the devcontainer CLI is missing', async () => {
    const tools = fakeTools();
    cannedDocker(tools.dir);
    const lister = createContainerLister({ docker: tools.docker, devcontainerCli: join(tools.dir, 'no-such-cli') });
    await lister.recreate(devcontainerId(PROJECT));
    const failed = await until(
      () => lister.list(),
      (response) => response.devcontainers[0]?.status !== 'starting',
    );
    assert.equal(failed.devcontainers[0]?.status, 'error');
    assert.match(failed.devcontainers[0]?.error ?? '', /devcontainer CLI is not installed/);
  });
});
