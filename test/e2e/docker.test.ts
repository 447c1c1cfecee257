import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CoveClient } from '../../src/sdk/client.js';
import { stop, waitFor } from '../helpers/child-process.js';
import { RUN_DATABASE, THE_SQLITE_RUN_COVERS_IT, type TestDatabase, createTestDatabase, serveDatabaseArgs } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { singleExecutable } from '../helpers/single-executable.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** `.ci/run` builds it with scripts/docker-test-image.sh; this test builds it when it is missing. */
const IMAGE = process.env['COVE_TEST_DOCKER_IMAGE'] || 'cove-test-busybox:latest';

function docker(...args: string[]): { code: number; stdout: string; stderr: string } {
  const result = spawnSync('docker', args, { encoding: 'utf8', timeout: 120_000 });
  return { code: result.status ?? -1, stdout: result.stdout ?? '', stderr: result.stderr ?? result.error?.message ?? '' };
}

/** Why no Docker engine can be used here, or undefined when one answers. */
function engineMissing(): string | undefined {
  const version = docker('version', '--format', '{{.Server.Version}}');
  if (version.code === 0) return undefined;
  return `no Docker engine answers (docker version: ${version.stderr.trim().split('\n').pop() || `exit code ${version.code}`})`;
}

const missing = engineMissing();
if (missing !== undefined && process.env['COVE_REQUIRE_DOCKER'] === '1') {
  // .ci/run installs and starts dockerd: there a missing engine is a failure, not a skip.
  describe('workspaces in Docker containers', () => {
    it('has a Docker engine (COVE_REQUIRE_DOCKER=1)', () => assert.fail(missing));
  });
} else {
  describe('workspaces in Docker containers, from the single executable', { skip: THE_SQLITE_RUN_COVERS_IT || missing }, () => {
    const root = mkdtempSync(join(tmpdir(), 'cove-docker-e2e-'));
    const env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: join(root, 'home'),
      COVE_SECRET_STORE: 'file',
      ...(process.env['DOCKER_HOST'] ? { DOCKER_HOST: process.env['DOCKER_HOST'] } : {}),
    };
    let cove = '';
    const run = (...args: string[]) => {
      const result = spawnSync(cove, args, { cwd: root, env, encoding: 'utf8', timeout: 180_000 });
      return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
    };
    let server: ChildProcess | undefined;
    let database: TestDatabase | undefined;
    let client: CoveClient;
    let workspaceId = '';

    const containers = () =>
      docker('ps', '--all', '--filter', `label=cove.workspace_id=${workspaceId}`, '--format', '{{.ID}} {{.State}}')
        .stdout.trim()
        .split('\n')
        .filter((line) => line !== '');
    const agents = async () => (await client.workspace(workspaceId)).latest_build.resources.flatMap((resource) => resource.agents ?? []);

    before(async () => {
      mkdirSync(env.HOME);
      cove = await singleExecutable();
      if (docker('image', 'inspect', IMAGE).code !== 0) {
        const built = spawnSync(join(ROOT, 'scripts', 'docker-test-image.sh'), [IMAGE], { cwd: ROOT, encoding: 'utf8' });
        assert.equal(built.status, 0, built.stderr);
      }
      database = await createTestDatabase(RUN_DATABASE);
      server = spawn(cove, ['serve', '--http-address', '127.0.0.1:0', '--data-dir', join(root, 'data'), ...serveDatabaseArgs(database)], {
        cwd: root,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const url = await waitFor(server, 'stderr', /cove is listening url=(\S+)/, 'cove serve');
      const login = run(
        'login',
        url,
        '--first-user-email',
        'a@example.com',
        '--first-user-username',
        'admin',
        '--first-user-password',
        STRONG_PASSWORD,
      );
      assert.equal(login.code, 0, login.stderr);
      client = new CoveClient({ url });
      client = new CoveClient({ url, token: (await client.login('a@example.com', STRONG_PASSWORD)).session_token });
    });

    after(async () => {
      if (workspaceId !== '') {
        for (const line of containers()) docker('rm', '--force', line.split(' ')[0] ?? '');
        docker('volume', 'rm', '--force', `cove-${workspaceId}-home`);
      }
      await stop(server);
      await database?.drop();
      rmSync(root, { recursive: true, force: true });
    });

    it('creates a workspace from the docker example whose agent, the same file mounted read-only, connects from the container', async () => {
      assert.equal(run('templates', 'init', '--id', 'docker', 'd').code, 0);
      const file = join(root, 'd', 'template.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replaceAll('ubuntu:24.04', IMAGE));
      const push = run('templates', 'push', 'd', '-y');
      assert.equal(push.code, 0, push.stderr);
      const create = run('create', 'dev', '--template', 'd', '-y');
      assert.equal(create.code, 0, create.stderr);
      workspaceId = (await client.workspaceByOwnerAndName('me', 'dev')).id;

      const ssh = run('ssh', 'dev', '--', 'cat', '/etc/hostname');
      assert.equal(ssh.code, 0, ssh.stderr);
      assert.equal(ssh.stdout.trim(), 'dev');
      assert.notEqual(ssh.stdout.trim(), hostname());

      const [container] = containers();
      assert.match(container ?? '', / running$/);
      const inspect = JSON.parse(docker('inspect', container?.split(' ')[0] ?? '').stdout) as {
        Path: string;
        Args: string[];
        HostConfig: { NetworkMode: string };
        Mounts: { Source: string; Destination: string; RW: boolean }[];
      }[];
      const [details] = inspect;
      assert.equal(details?.HostConfig.NetworkMode, 'host');
      assert.equal(details?.Path, `/opt/cove/host${cove}`);
      assert.deepEqual(details?.Args, ['agent']);
      const mount = details?.Mounts.find((entry) => entry.Destination === `/opt/cove/host${cove}`);
      assert.equal(mount?.Source, cove);
      assert.equal(mount?.RW, false);
      assert.equal(run('ssh', 'dev', '--', 'echo kept > /home/cove/marker').code, 0);
    });

    it('stops it: the container stops and the agent goes off', async () => {
      const [agent] = await agents();
      assert.ok(agent, 'the running build has an agent');
      const stopped = run('stop', 'dev');
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.deepEqual(
        containers().filter((line) => line.endsWith(' running')),
        [],
      );
      await eventually(async () => {
        const after = await client.workspaceAgent(agent.id);
        assert.equal(after.lifecycle_state, 'off');
        assert.notEqual(after.status, 'connected');
      }, 30_000);
    });

    it('starts it again with the volume kept', () => {
      const started = run('start', 'dev');
      assert.equal(started.code, 0, started.stderr);
      const ssh = run('ssh', 'dev', '--', 'cat', '/home/cove/marker');
      assert.equal(ssh.code, 0, ssh.stderr);
      assert.equal(ssh.stdout, 'kept\n');
    });

    it('deletes it: container and volume gone', () => {
      const deleted = run('delete', 'dev', '-y');
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.deepEqual(containers(), []);
      assert.notEqual(docker('volume', 'inspect', `cove-${workspaceId}-home`).code, 0, 'the home volume is removed');
    });
  });
}
