import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Our own code a plain command must never load: the daemon, its store, API and rules, the agent, the provisioner runner. */
const SERVER_SIDE = ['src/daemon/', 'src/store/', 'src/api/', 'src/agent/', 'src/provisioner/runner/', 'src/domain/'];
const PLAIN = [['whoami'], ['ls'], ['templates', 'list']];

describe('CLI start-up split', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cove-startup-split-'));
    // Reports every package loaded through require(), and whether Node's ES module loader started,
    // which only the full build (dist/entry.js and its chunks) needs: so a run says which build it
    // ran from and what it pulled in.
    writeFileSync(
      join(dir, 'report.cjs'),
      `const Module = require('node:module');
      const load = Module._load;
      Module._load = function (request, ...rest) {
        if (!Module.isBuiltin(request) && !request.startsWith('.') && !request.startsWith('/')) process.stderr.write('package ' + request + '\\n');
        return load.call(this, request, ...rest);
      };
      process.on('exit', () => {
        if (process.moduleLoadList.includes('NativeModule internal/modules/esm/module_job')) process.stderr.write('full build\\n');
      });`,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const run = (args: readonly string[]) =>
    spawnSync(join(root, 'bin', 'cove'), [...args], {
      encoding: 'utf8',
      env: { ...process.env, COVE_CONFIG_DIR: join(dir, 'config'), NODE_OPTIONS: `--require ${join(dir, 'report.cjs')}` },
    });

  it('holds the plain commands and none of the server side', () => {
    const file = join(root, 'dist', 'cli-fast.inputs.json');
    assert.ok(existsSync(file), 'dist/cli-fast.inputs.json is missing: npm test builds it first');
    const inputs = JSON.parse(readFileSync(file, 'utf8')) as string[];
    for (const command of ['whoami', 'workspace-list', 'templates'])
      assert.ok(inputs.includes(`src/cli/commands/${command}.ts`), `${command} is not in the fast part`);
    assert.deepEqual(
      inputs.filter((path) => SERVER_SIDE.some((prefix) => path.startsWith(prefix))),
      [],
    );
    // commander is the one package bundled; the rest are required when used.
    assert.deepEqual(
      [...new Set(inputs.filter((path) => path.includes('node_modules/')).map((path) => /node_modules\/([^/]+)/.exec(path)?.[1]))],
      ['commander'],
    );
    assert.ok(inputs.includes('full-build:src/cli/commands/serve.ts'), 'serve should be a stand-in');
  });

  it('runs the plain commands from the fast part, loading no package and nothing of the full build', () => {
    for (const args of PLAIN) {
      const result = run([...args, '--url', 'http://127.0.0.1:1', '--token', 'x']);
      assert.match(result.stderr, /Could not reach the deployment/, args.join(' '));
      assert.deepEqual(
        result.stderr.split('\n').filter((line) => line.startsWith('package ') || line === 'full build'),
        [],
        args.join(' '),
      );
    }
    const version = run(['--version']);
    assert.equal(version.status, 0, version.stderr);
    assert.equal(version.stderr, '');
  });

  it('hands the other commands to the full build', () => {
    const result = run(['serve', '--help']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /Usage: cove serve/);
    assert.match(result.stderr, /^full build$/m);
  });

  it('makes a code cache named for the part it was made from, and uses it', () => {
    const source = readFileSync(join(root, 'dist', 'cli-fast.cjs'), 'utf8');
    const hash = /^\/\/ cove-fast-part ([0-9a-f]{32})\n/.exec(source)?.[1];
    assert.ok(hash !== undefined, 'the fast part carries no hash');
    assert.ok(existsSync(join(root, 'dist', `cli-fast-${hash}.cache`)), 'the build made no code cache');
  });
});
