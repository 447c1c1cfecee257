import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stop, waitFor } from '../helpers/child-process.js';
import { COVE_BIN } from '../helpers/repository-root.js';
import { TerminalUser, type ServeProcess } from '../helpers/terminal-user.js';

describe('templates, provisioners and workspaces with bin/cove', () => {
  const user = new TerminalUser('tw');
  const { root, env } = user;
  const cove = (...args: string[]) => user.cove(...args);
  let serve: ServeProcess | undefined;
  let provisioner: ChildProcess | undefined;
  let url = '';

  before(async () => {
    serve = await user.serve();
    url = serve.url;
    user.signUpFirstUser(url);
  });

  after(async () => {
    // If a test failed half-way, its workspace's agent process is still running: deleting stops it.
    cove('delete', 'dev', '-y');
    await stop(provisioner);
    await serve?.close();
    user.remove();
  });

  it('pushes the local-shell example with live logs, then creates a workspace whose agent gets ready, stops, starts and deletes it', () => {
    assert.equal(cove('templates', 'init', '--id', 'local-shell', 't').code, 0);
    const push = cove('templates', 'push', 't', '-y');
    assert.equal(push.code, 0, push.stderr);
    const printed = push.stdout + push.stderr;
    for (const stage of ['Parsing template parameters', 'Detecting persistent resources', 'Cleaning Up'])
      assert.match(printed, new RegExp(stage));
    assert.match(printed, /Template "t" is now at version "[^"]+"\./);
    const versions = JSON.parse(cove('templates', 'versions', 'list', 't', '-o', 'json').stdout) as { job: { status: string } }[];
    assert.deepEqual(
      versions.map((v) => v.job.status),
      ['succeeded'],
    );

    const create = cove('create', 'dev', '--template', 't', '-y');
    assert.equal(create.code, 0, create.stderr);
    assert.match(create.stdout + create.stderr, /Workspace "dev" is running\./);
    const listed = JSON.parse(cove('ls', '-o', 'json').stdout) as { name: string; latest_build: { status: string } }[];
    assert.deepEqual(
      listed.map((w) => [w.name, w.latest_build.status]),
      [['dev', 'running']],
    );
    // The process compute started `cove agent` with the build's token; it dials back and gets ready.
    type Shown = { latest_build: { resources: { agents: { name: string; status: string; lifecycle_state: string }[] }[] } };
    const agents = () => (JSON.parse(cove('show', 'dev', '-o', 'json').stdout) as Shown).latest_build.resources.flatMap((r) => r.agents);
    const deadline = Date.now() + 20_000;
    while (!agents().some((a) => a.status === 'connected' && a.lifecycle_state === 'ready')) {
      assert.ok(Date.now() < deadline, `the agent did not become ready: ${JSON.stringify(agents())}`);
      spawnSync('sleep', ['0.2']);
    }
    assert.match(cove('stop', 'dev').stdout, /is stopped/);
    assert.match(cove('start', 'dev').stdout, /is running/);
    assert.match(cove('delete', 'dev', '-y').stdout, /has been deleted/);
    assert.deepEqual(JSON.parse(cove('ls', '-o', 'json').stdout), []);
  });

  it('fails a push that misses a required variable, naming it', () => {
    mkdirSync(join(root, 'needs-region'));
    writeFileSync(join(root, 'needs-region', 'echo.json'), JSON.stringify({ parse: { variables: [{ name: 'region', required: true }] } }));
    const push = cove('templates', 'push', 'needs-region', '-y');
    assert.equal(push.code, 1);
    assert.match(push.stderr, /REQUIRED_TEMPLATE_VARIABLES/);
    assert.match(push.stderr, /region/);
  });

  it('runs tagged jobs on an external provisioner in a second process, and untagged ones elsewhere', async () => {
    const created = cove('provisioner', 'keys', 'create', 'gpu', '--tag', 'pool=gpu', '-o', 'json');
    assert.equal(created.code, 0, created.stderr);
    const { key } = JSON.parse(created.stdout) as { key: string };
    provisioner = spawn(COVE_BIN, ['--url', url, 'provisioner', 'start', '--key', key, '--name', 'gpu-box'], {
      env: { ...process.env, ...env, COVE_CONFIG_DIR: join(root, 'provisioner-config') },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await waitFor(provisioner, 'stderr', /provisioner daemon connected/, 'cove provisioner start');
    for (const [dir, tags] of [
      ['tagged', ['--provisioner-tag', 'pool=gpu']],
      ['untagged', []],
    ] as const) {
      mkdirSync(join(root, dir));
      writeFileSync(join(root, dir, 'echo.json'), '{}');
      const push = cove('templates', 'push', dir, '-y', ...tags);
      assert.equal(push.code, 0, push.stderr);
    }
    const worker = (name: string) =>
      (JSON.parse(cove('templates', 'versions', 'list', name, '-o', 'json').stdout) as { job: { worker_name?: string } }[])[0]?.job
        .worker_name;
    assert.equal(worker('tagged'), 'gpu-box');
    // Built-in daemons are named after the replica that runs them.
    assert.match(worker('untagged') ?? '', /^built-in-1@.+-[0-9a-f]{8}$/);
  });
});
