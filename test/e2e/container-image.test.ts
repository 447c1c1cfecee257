import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CoveClient } from '../../src/sdk/client.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { singleExecutable } from '../helpers/single-executable.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';
import { freePort } from '../helpers/free-port.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The image workspaces run in (`.ci/run` builds it with scripts/docker-test-image.sh). */
const WORKSPACE_IMAGE = process.env['COVE_TEST_DOCKER_IMAGE'] || 'cove-test-busybox:latest';
const SUFFIX = `${process.pid}-${Date.now().toString(36)}`;
const IMAGE = `cove-image-test:${SUFFIX}`;
const CONTAINER = `cove-image-test-${SUFFIX}`;
const VOLUME = `cove-image-test-data-${SUFFIX}`;

function docker(...args: string[]): { code: number; stdout: string; stderr: string } {
  const result = spawnSync('docker', args, { encoding: 'utf8', timeout: 120_000 });
  return { code: result.status ?? -1, stdout: result.stdout ?? '', stderr: result.stderr ?? result.error?.message ?? '' };
}

function engineMissing(): string | undefined {
  const version = docker('version', '--format', '{{.Server.Version}}');
  if (version.code === 0) return undefined;
  return `no Docker engine answers (docker version: ${version.stderr.trim().split('\n').pop() || `exit code ${version.code}`})`;
}

/** The engine's socket on this machine, which the container gets mounted. */
function socketPath(): string {
  const host = process.env['DOCKER_HOST'] ?? '';
  return host.startsWith('unix://') ? host.slice('unix://'.length) : '/var/run/docker.sock';
}

const missing = engineMissing();
if (missing !== undefined && process.env['COVE_REQUIRE_DOCKER'] === '1') {
  describe('the container image', () => {
    it('has a Docker engine (COVE_REQUIRE_DOCKER=1)', () => assert.fail(missing));
  });
} else {
  describe('the container image, built without pulling', { skip: THE_SQLITE_RUN_COVERS_IT || missing }, () => {
    const root = mkdtempSync(join(tmpdir(), 'cove-image-e2e-'));
    const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: join(root, 'home'), COVE_SECRET_STORE: 'file' };
    let cove = '';
    let url = '';
    let workspaceId = '';
    const run = (...args: string[]) => {
      const result = spawnSync(cove, args, { cwd: root, env, encoding: 'utf8', timeout: 180_000 });
      return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
    };
    const signIn = async () => {
      const anonymous = new CoveClient({ url });
      return new CoveClient({ url, token: (await anonymous.login('a@example.com', STRONG_PASSWORD)).session_token });
    };
    const listening = () =>
      eventually(async () => {
        const state = docker('inspect', '--format', '{{.State.Status}}', CONTAINER).stdout.trim();
        assert.equal(state, 'running', docker('logs', '--tail', '20', CONTAINER).stderr);
        await new CoveClient({ url }).buildInfo();
      }, 30_000);

    before(async () => {
      mkdirSync(env.HOME);
      cove = await singleExecutable();
      if (docker('image', 'inspect', WORKSPACE_IMAGE).code !== 0) {
        const built = spawnSync(join(ROOT, 'scripts', 'docker-test-image.sh'), [WORKSPACE_IMAGE], { cwd: ROOT, encoding: 'utf8' });
        assert.equal(built.status, 0, built.stderr);
      }
      const image = spawnSync(join(ROOT, 'packaging', 'container-image.sh'), ['--executable', cove, '--tag', IMAGE], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      assert.equal(image.status, 0, image.stderr);
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      const socket = socketPath();
      const started = docker(
        'run',
        '--detach',
        '--name',
        CONTAINER,
        '--network',
        'host',
        // The socket's group, so the image's unprivileged user may talk to the engine.
        '--group-add',
        String(statSync(socket).gid),
        '--volume',
        `${VOLUME}:/var/lib/cove`,
        '--volume',
        `${socket}:/var/run/docker.sock`,
        '--env',
        `COVE_HTTP_ADDRESS=127.0.0.1:${port}`,
        '--env',
        `COVE_ACCESS_URL=${url}`,
        IMAGE,
      );
      assert.equal(started.code, 0, started.stderr);
      await listening();
    });

    after(() => {
      if (workspaceId !== '') {
        const containers = docker('ps', '--all', '--quiet', '--filter', `label=cove.workspace_id=${workspaceId}`).stdout.split('\n');
        for (const id of containers.filter((line) => line !== '')) docker('rm', '--force', id);
        docker('volume', 'rm', '--force', `cove-${workspaceId}-home`);
      }
      docker('rm', '--force', CONTAINER);
      docker('volume', 'rm', '--force', VOLUME);
      docker('image', 'rm', '--force', IMAGE);
      rmSync(root, { recursive: true, force: true });
    });

    it('runs as the cove user with its data on the volume', () => {
      const config = JSON.parse(docker('image', 'inspect', '--format', '{{json .Config}}', IMAGE).stdout) as {
        User: string;
        Entrypoint: string[];
        Cmd: string[];
        Volumes: Record<string, unknown>;
      };
      assert.equal(config.User, 'cove');
      assert.deepEqual(config.Entrypoint, ['/usr/local/bin/cove']);
      assert.deepEqual(config.Cmd, ['serve']);
      assert.deepEqual(Object.keys(config.Volumes), ['/var/lib/cove']);
      // Nothing was pulled: the image has a single layer, the imported root.
      const layers = JSON.parse(docker('image', 'inspect', '--format', '{{json .RootFS.Layers}}', IMAGE).stdout) as string[];
      assert.equal(layers.length, 1);
      const id = docker('exec', CONTAINER, '/usr/local/bin/cove', 'version');
      assert.equal(id.code, 0, id.stderr);
    });

    it('signs in from the host and creates a docker workspace through the mounted socket, whose agent connects', async () => {
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
      assert.equal(run('templates', 'init', '--id', 'docker', 'd').code, 0);
      const file = join(root, 'd', 'template.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replaceAll('ubuntu:24.04', WORKSPACE_IMAGE));
      const push = run('templates', 'push', 'd', '-y');
      assert.equal(push.code, 0, push.stderr);
      const create = run('create', 'dev', '--template', 'd', '-y');
      assert.equal(create.code, 0, create.stderr);
      const client = await signIn();
      workspaceId = (await client.workspaceByOwnerAndName('me', 'dev')).id;
      await eventually(async () => {
        const agents = (await client.workspace(workspaceId)).latest_build.resources.flatMap((resource) => resource.agents ?? []);
        assert.equal(agents[0]?.status, 'connected');
      }, 30_000);
      const ssh = run('ssh', 'dev', '--', 'cat', '/etc/hostname');
      assert.equal(ssh.code, 0, ssh.stderr);
      assert.equal(ssh.stdout.trim(), 'dev');
    });

    it('keeps the data across a restart of the container', async () => {
      const restarted = docker('restart', '-t', '20', CONTAINER);
      assert.equal(restarted.code, 0, restarted.stderr);
      await listening();
      const client = await signIn();
      const workspace = await client.workspaceByOwnerAndName('me', 'dev');
      assert.equal(workspace.id, workspaceId);
      assert.deepEqual(
        (await client.templates()).map((template) => template.name),
        ['d'],
      );
    });
  });
}
