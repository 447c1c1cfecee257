import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoveClient } from '../../src/sdk/client.js';
import type { Template, TemplateVersion } from '../../src/sdk/wire/index.js';
import { inspectTar } from '../../src/lib/archive/index.js';
import { parseIgnoreRules, tarTemplateDirectory } from '../../src/cli/template-archive.js';
import { CliUser } from '../helpers/run-cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const REQUIRED_REGION = { parse: { variables: [{ name: 'region', required: true }] } };

/** Every file under `dir` with its content and permission bits, by relative path. */
function snapshot(dir: string, prefix = ''): Record<string, { content: string; mode: number }> {
  const files: Record<string, { content: string; mode: number }> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(files, snapshot(path, `${prefix}${entry.name}/`));
    else files[`${prefix}${entry.name}`] = { content: readFileSync(path, 'utf8'), mode: statSync(path).mode & 0o777 };
  }
  return files;
}

describe('cove templates', () => {
  let test: TestDaemon;
  let client: CoveClient;
  const admin = new CliUser();
  const work = mkdtempSync(join(tmpdir(), 'cove-templates-'));

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '2' } });
    await admin.signUpFirstUser(test.url, { email: 'a@example.com', username: 'admin' });
    client = new CoveClient({ url: test.url, token: admin.savedToken() });
  });
  after(async () => test.close());

  it('init writes an example, without a deployment; refuses a non-empty directory; lists examples without --id', async () => {
    const offline = new CliUser();
    const dir = join(work, 'shell-init');
    const init = await offline.run('templates', 'init', '--id', 'local-shell', dir);
    assert.equal(init.code, 0, init.stderr);
    assert.deepEqual(readdirSync(dir).sort(), ['README.md', 'template.yaml']);
    assert.match(init.stdout, /cove templates push/);

    const again = await offline.run('templates', 'init', '--id', 'local-shell', dir);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is not empty/);

    const noId = await offline.run('templates', 'init', join(work, 'unused'));
    assert.equal(noId.code, 1);
    assert.match(noId.stdout, /local-shell/);
    assert.match(noId.stderr, /--id/);

    const unknown = await offline.run('templates', 'init', '--id', 'nope', join(work, 'unused'));
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no example "nope"/);
  });

  it('push creates the template with stage logs, and a second push makes a new active version', async () => {
    const dir = join(work, 'shell');
    assert.equal((await admin.run('templates', 'init', '--id', 'local-shell', dir)).code, 0);

    const first = await admin.run('templates', 'push', dir, '-y');
    assert.equal(first.code, 0, first.stderr + first.stdout);
    assert.match(first.stdout, /==> ⧗ Parsing template parameters/);
    assert.match(first.stdout, /=== ✔ Parsing template parameters \[\d+ms\]/);
    assert.match(first.stdout, /Detecting persistent resources/);
    const finalLine = /Template "shell" is now at version "([^"]+)"\./.exec(first.stdout);
    assert.ok(finalLine, first.stdout);

    const listed = await admin.run('templates', 'versions', 'list', 'shell', '-o', 'json');
    assert.equal(listed.code, 0, listed.stderr);
    const versions = JSON.parse(listed.stdout) as TemplateVersion[];
    assert.equal(versions.length, 1);
    assert.equal(versions[0]?.job.status, 'succeeded');
    assert.equal(versions[0]?.name, finalLine[1]);

    writeFileSync(join(dir, 'notes.txt'), 'second version\n');
    const second = await admin.run('templates', 'push', dir, '--version-name', 'second', '-m', 'Add notes', '-o', 'json');
    assert.equal(second.code, 0, second.stderr);
    const pushed = JSON.parse(second.stdout) as TemplateVersion;
    assert.equal(pushed.name, 'second');
    assert.equal(pushed.message, 'Add notes');
    assert.doesNotMatch(second.stdout, /==>/, 'JSON output has no build log');
    const template = await client.templateByName('default', 'shell');
    assert.equal(template.active_version_id, pushed.id);

    const table = await admin.run('templates', 'versions', 'list', 'shell');
    assert.match(table.stdout, /^NAME\s+CREATED AT\s+CREATED BY\s+STATUS\s+ACTIVE/);
    assert.match(table.stdout, /second\s+.*admin\s+succeeded\s+active/);

    const inactive = await admin.run('templates', 'push', dir, '--version-name', 'third', '--activate=false');
    assert.equal(inactive.code, 0, inactive.stderr);
    assert.match(inactive.stdout, /it is not active/);
    assert.equal((await client.templateByName('default', 'shell')).active_version_id, pushed.id);
    const promoted = await admin.run('templates', 'versions', 'promote', 'shell', 'third');
    assert.equal(promoted.code, 0, promoted.stderr);
    assert.match(promoted.stdout, /Template "shell" is now at version "third"/);
  });

  it('fails on required variables with the error code, and succeeds once they are given', async () => {
    const dir = join(work, 'regional');
    mkdirSync(dir);
    writeFileSync(join(dir, 'echo.json'), JSON.stringify(REQUIRED_REGION));

    const missing = await admin.run('templates', 'push', dir, '-y');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /REQUIRED_TEMPLATE_VARIABLES/);
    assert.match(missing.stderr, /region/);
    assert.match(missing.stdout, /=== ✘/);
    assert.equal((await admin.run('templates', 'show', 'regional')).code, 1, 'no template was created');

    const given = await admin.run('templates', 'push', dir, '-y', '--variable', 'region=eu');
    assert.equal(given.code, 0, given.stderr + given.stdout);
    assert.match(given.stdout, /Template "regional" is now at version/);

    const file = join(work, 'vars.yaml');
    writeFileSync(file, 'region: us\n');
    const fromFile = await admin.run('templates', 'push', dir, '--variables-file', file);
    assert.equal(fromFile.code, 0, fromFile.stderr);

    const archived = await admin.run('templates', 'versions', 'archive', 'regional', '--all-failed', '-o', 'json');
    assert.equal(archived.code, 0, archived.stderr);
    assert.deepEqual(
      (JSON.parse(archived.stdout) as { archived_ids: string[] }).archived_ids,
      [],
      'the failed version never belonged to the template',
    );
  });

  it('lists, shows and edits templates', async () => {
    const list = await admin.run('templates', 'list', '-o', 'json');
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual((JSON.parse(list.stdout) as Template[]).map((t) => t.name).sort(), ['regional', 'shell']);
    assert.match((await admin.run('templates', 'list')).stdout, /^NAME\s+DISPLAY NAME\s+ORGANIZATION\s+ACTIVE USERS\s+LAST UPDATED/);

    const edited = await admin.run(
      'templates',
      'edit',
      'shell',
      '--display-name',
      'Shell',
      '--default-ttl',
      '8h',
      '--activity-bump',
      '30m',
      '--require-active-version',
      '-o',
      'json',
    );
    assert.equal(edited.code, 0, edited.stderr);
    const template = JSON.parse(edited.stdout) as Template;
    assert.equal(template.display_name, 'Shell');
    assert.equal(template.default_ttl_ms, 8 * 3_600_000);
    assert.equal(template.activity_bump_ms, 30 * 60_000);
    assert.equal(template.require_active_version, true);

    const same = await admin.run('templates', 'edit', 'shell', '--display-name', 'Shell');
    assert.equal(same.code, 0, same.stderr);
    assert.match(same.stdout, /no changes/);

    const bad = await admin.run('templates', 'edit', 'shell', '--default-ttl', 'soon');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /not a duration/);

    const shown = await admin.run('templates', 'show', 'shell');
    assert.match(shown.stdout, /display name:\s+Shell/);
    assert.match(shown.stdout, /default ttl:\s+8h0m0s/);
    assert.match(shown.stdout, /active version:\s+third/);
    assert.equal((JSON.parse((await admin.run('templates', 'show', 'shell', '-o', 'json')).stdout) as Template).name, 'shell');
  });

  it('pulls a version back with its files and modes, as a directory or an archive', async () => {
    const dir = join(work, 'scripted');
    mkdirSync(join(dir, 'scripts'), { recursive: true });
    writeFileSync(join(dir, 'echo.json'), '{}');
    writeFileSync(join(dir, 'scripts', 'setup.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(dir, 'scripts', 'setup.sh'), 0o755);
    mkdirSync(join(dir, 'node_modules', 'left-out'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', 'left-out', 'index.js'), '');
    writeFileSync(join(dir, '.coveignore'), '*.log\n');
    writeFileSync(join(dir, 'debug.log'), 'noise');
    assert.equal((await admin.run('templates', 'push', dir, '-y')).code, 0);

    const dest = join(work, 'pulled');
    const pulled = await admin.run('templates', 'pull', 'scripted', dest);
    assert.equal(pulled.code, 0, pulled.stderr);
    const expected = snapshot(dir);
    delete expected['node_modules/left-out/index.js'];
    delete expected['debug.log'];
    assert.deepEqual(snapshot(dest), expected);

    const again = await admin.run('templates', 'pull', 'scripted', dest);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is not empty/);

    const tarPath = join(work, 'scripted.tar');
    assert.equal((await admin.run('templates', 'pull', 'scripted', tarPath, '--tar', '--template-version', 'latest')).code, 0);
    const entries = await inspectTar(readFileSync(tarPath));
    assert.ok(entries.some((e) => e.path === 'scripts/setup.sh' && e.mode === 0o755));
    const zipPath = join(work, 'scripted.zip');
    assert.equal((await admin.run('templates', 'pull', 'scripted', zipPath, '--zip')).code, 0);
    assert.equal(readFileSync(zipPath).subarray(0, 2).toString('latin1'), 'PK');
  });

  it('deletes a template after confirmation', async () => {
    const unconfirmed = await admin.run('templates', 'delete', 'scripted');
    assert.equal(unconfirmed.code, 1);
    assert.match(unconfirmed.stderr, /-y/);
    const deleted = await admin.run('templates', 'delete', 'scripted', '-y');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /Deleted template "scripted"/);
    const missing = await admin.run('templates', 'show', 'scripted');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No template named "scripted"/);
  });
});

describe('template archives', () => {
  it('keep modes and inner symlinks, skip ignored paths, and refuse links out and oversized directories', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cove-archive-'));
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.git', 'HEAD'), 'ref');
    mkdirSync(join(dir, 'build', 'deep'), { recursive: true });
    writeFileSync(join(dir, 'build', 'deep', 'out.bin'), 'x');
    writeFileSync(join(dir, 'keep.log'), 'kept');
    writeFileSync(join(dir, 'drop.log'), 'dropped');
    writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\n');
    chmodSync(join(dir, 'run.sh'), 0o755);
    symlinkSync('run.sh', join(dir, 'start.sh'));
    writeFileSync(join(dir, '.coveignore'), '# comment\n/build/\n*.log\n!keep.log\n');
    const entries = await inspectTar(await tarTemplateDirectory(dir));
    assert.deepEqual(entries.map((e) => e.path).sort(), ['.coveignore', 'keep.log', 'run.sh', 'start.sh']);
    assert.equal(entries.find((e) => e.path === 'run.sh')?.mode, 0o755);
    assert.equal(entries.find((e) => e.path === 'start.sh')?.linkTarget, 'run.sh');

    symlinkSync('../elsewhere', join(dir, 'escape'));
    await assert.rejects(tarTemplateDirectory(dir), /outside the template directory/);
    await assert.rejects(tarTemplateDirectory(mkdtempSync(join(tmpdir(), 'cove-archive-')), { maxBytes: -1 }), /larger than/);
    const big = mkdtempSync(join(tmpdir(), 'cove-archive-'));
    writeFileSync(join(big, 'blob'), Buffer.alloc(2048));
    await assert.rejects(tarTemplateDirectory(big, { maxBytes: 1024 }), /larger than/);
  });

  it('reads .coveignore patterns the way gitignore does', () => {
    const rules = parseIgnoreRules('docs/*.md\n**/tmp\nsecret?.txt\n[ab].txt\n');
    assert.equal(rules.ignores('docs/a.md', false), true);
    assert.equal(rules.ignores('docs/sub/a.md', false), false);
    assert.equal(rules.ignores('x/y/tmp', true), true);
    assert.equal(rules.ignores('secret1.txt', false), true);
    assert.equal(rules.ignores('nested/secret1.txt', false), true);
    assert.equal(rules.ignores('a.txt', false), true);
    assert.equal(rules.ignores('c.txt', false), false);
  });
});
