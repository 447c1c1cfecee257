import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { inspectTar } from '../../src/lib/archive/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template } from '../../src/sdk/wire/index.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

/** Lines the build log holds: far more than a pipe buffers, so the reader can go while they are written. */
const LOG_LINES = 3000;

/** What one run of bin/cove left: its status, standard output as bytes, standard error as text. */
interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/**
 * Runs bin/cove as a script would, in `cwd`. `closeStdout` makes standard output a pipe whose
 * reader goes away: before the command writes anything (`cove --help | true`), or after the first
 * chunk it wrote (`cove logs dev | head -1`).
 */
function cove(
  args: readonly string[],
  options: { readonly cwd: string; readonly env: Record<string, string>; readonly closeStdout?: 'at-once' | 'after-first-chunk' },
): Promise<Run> {
  const child = spawn(COVE, [...args], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: Buffer[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  if (options.closeStdout === 'at-once') child.stdout.destroy();
  else
    child.stdout.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      if (options.closeStdout === 'after-first-chunk') child.stdout.destroy();
    });
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cove ${args.join(' ')} did not end within 60 s:\n${stderr}`));
    }, 60_000);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout: Buffer.concat(stdout), stderr });
    });
  });
}

/** A stack trace, or Node's report of an unhandled error, in what a run printed. */
const CRASH = /EPIPE|Unhandled 'error' event|\n\s+at /;

describe('cove in scripts: closed pipes, durations with units, archives on standard output', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let template: Template;
  const work = mkdtempSync(join(tmpdir(), 'cove-scripted-'));
  const env = { COVE_CONFIG_DIR: join(work, 'config'), COVE_SECRET_STORE: 'file' };
  /** bin/cove signed in as the owner, run in a directory of its own (to see what it writes there). */
  const run = (args: readonly string[], closeStdout?: 'at-once' | 'after-first-chunk') => {
    const cwd = mkdtempSync(join(work, 'cwd-'));
    return cove([...args, '--url', test.url, '--token', owner.token ?? ''], { cwd, env, ...(closeStdout ? { closeStdout } : {}) }).then(
      (result) => ({ ...result, cwd }),
    );
  };

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    const logs = Array.from(
      { length: LOG_LINES },
      (_, i) => `line ${i} of a build log long enough that a pipe fills up well before its end`,
    );
    ({ template } = await createEchoTemplate(owner, 'chatty', { apply: { logs } }));
    const created = await owner.createWorkspace('me', { name: 'dev', template_id: template.id });
    await owner.followWorkspaceBuildLogs(created.latest_build.id, () => undefined);
  });
  after(async () => {
    await test.close();
    rmSync(work, { recursive: true, force: true });
  });

  describe('a reader that goes away ends the command quietly, with status 141', () => {
    it('cove --help, when the reader has gone before it writes', async () => {
      const result = await cove(['--help'], { cwd: work, env, closeStdout: 'at-once' });
      assert.doesNotMatch(result.stderr, CRASH);
      assert.equal(result.stderr, '');
      assert.deepEqual([result.code, result.signal], [141, null]);
    });

    it('cove logs, when the reader goes after the first lines (as head -1 does)', async () => {
      const result = await run(['logs', 'dev'], 'after-first-chunk');
      assert.match(result.stdout.toString('utf8'), /^==> Build #1: start/);
      assert.doesNotMatch(result.stderr, CRASH);
      assert.equal(result.stderr, '');
      assert.deepEqual([result.code, result.signal], [141, null]);
    });

    it('a reader that stays gets everything, and status 0', async () => {
      const result = await run(['logs', 'dev']);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout.toString('utf8'), new RegExp(`line ${LOG_LINES - 1} of a build log`));
    });
  });

  describe('a duration without a unit is refused, and nothing is made', () => {
    const refusal = (flag: string, value: string) =>
      new RegExp(`^error: ${flag}: ${value} has no unit; write ${value}s, ${value}m, ${value}h or ${value}d\\.\\n$`);

    it('tokens create --lifetime 30', async () => {
      const before = await owner.listTokens();
      const result = await run(['tokens', 'create', '--name', 'short-lived', '--lifetime', '30']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, refusal('--lifetime', '30'));
      assert.equal(result.stdout.length, 0);
      assert.deepEqual(await owner.listTokens(), before, 'no token was made');

      const hour = await run(['tokens', 'create', '--name', 'hour', '--lifetime', '1h']);
      assert.equal(hour.code, 0, hour.stderr);
      const made = (await owner.listTokens()).find((token) => token.token_name === 'hour');
      assert.equal(made?.lifetime_seconds, 3600);
    });

    it('templates edit --default-ttl 8, while 0 and 8h stay what they were', async () => {
      const result = await run(['templates', 'edit', 'chatty', '--default-ttl', '8']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, refusal('--default-ttl', '8'));
      assert.equal((await owner.template(template.id)).default_ttl_ms, template.default_ttl_ms, 'the template is unchanged');

      assert.equal((await run(['templates', 'edit', 'chatty', '--default-ttl', '8h'])).code, 0);
      assert.equal((await owner.template(template.id)).default_ttl_ms, 8 * 3_600_000);
      assert.equal((await run(['templates', 'edit', 'chatty', '--default-ttl', '0'])).code, 0);
      assert.equal((await owner.template(template.id)).default_ttl_ms, 0);
    });

    it('create --ttl 600000 (ten minutes, read as milliseconds)', async () => {
      const result = await run(['create', 'quick', '--template', 'chatty', '--ttl', '600000', '-y']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, refusal('--ttl', '600000'));
      assert.deepEqual(
        (await owner.workspaces()).workspaces.map((workspace) => workspace.name),
        ['dev'],
        'no workspace was made',
      );
    });
  });

  describe('templates pull with --tar or --zip and no destination', () => {
    it('writes the tar archive alone to standard output, says so on standard error, and writes no file', async () => {
      const result = await run(['templates', 'pull', 'chatty', '--tar']);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(
        (await inspectTar(result.stdout)).map((entry) => entry.path),
        ['echo.json'],
      );
      assert.match(result.stderr, /^Pulled version "[^"]+" of chatty as a tar archive\.\n$/);
      assert.deepEqual(readdirSync(result.cwd), [], 'nothing was written beside it');
    });

    it('writes the zip archive alone to standard output, under -o json too', async () => {
      const result = await run(['templates', 'pull', 'chatty', '--zip', '-o', 'json']);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.subarray(0, 4).toString('latin1'), 'PK\u0003\u0004', 'a zip archive');
      assert.equal(result.stderr, '');
      assert.deepEqual(readdirSync(result.cwd), []);
    });
  });
});
