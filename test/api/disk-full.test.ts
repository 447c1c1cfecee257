import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTar } from '../../src/lib/archive/index.js';
import { ApiError } from '../../src/sdk/api-error.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template } from '../../src/sdk/wire/index.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { capturingLogger, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** What a write answers while the disk is full. */
const DISK_FULL = 'The disk holding the database is full; free space on it and try again.';

/** A parameter value long enough to need pages of its own: 64 KiB. */
const LONG_VALUE = 64 * 1024;

/** The small disk the database is put on: room for the database and little more. */
const SMALL_DISK_BYTES = 8 * 1024 * 1024;

/** A template with one free-text parameter. */
const ECHO = { parse: { parameters: [{ name: 'note', type: 'string', default_value: '', mutable: true }] } };

/**
 * SQLite's own limit on the database's size stands in for the disk: past it a write fails with
 * SQLITE_FULL, exactly as it does when the disk has no room left, and raising it again is an
 * operator freeing space.
 */
async function limitPages(test: TestDaemon, pages: number | 'current'): Promise<void> {
  const db = test.daemon.store.db;
  let limit = pages;
  if (limit === 'current') {
    const { rows } = await sql<{ page_count: number }>`PRAGMA page_count`.execute(db);
    limit = Number(rows[0]?.page_count);
  }
  await sql.raw(`PRAGMA max_page_count = ${limit}`).execute(db);
}

/** A template archive unlike any other, so that each upload is a new row. */
function randomArchive(): Promise<Uint8Array> {
  return createTar({ 'main.tf': randomBytes(LONG_VALUE).toString('base64') });
}

/** How many rows `table` has, read past the API. */
async function count(test: TestDaemon, table: 'workspaces' | 'workspace_builds'): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(test.daemon.store.db);
  return Number(rows[0]?.n);
}

describe('a full disk under SQLite', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let template: Template;
  const log = capturingLogger();

  before(async () => {
    test = await startTestDaemon({ database: 'sqlite', logger: log.logger, flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    ({ template } = await createEchoTemplate(owner, 'echo', ECHO));
  });
  after(async () => {
    await limitPages(test, 1_073_741_823).catch(() => undefined);
    await test.close();
  });

  it('answers 507 saying so, writes nothing of a failed request, logs it plainly, and serves again once there is space', async () => {
    const before = { workspaces: await count(test, 'workspaces'), builds: await count(test, 'workspace_builds') };
    await limitPages(test, 'current');
    const upload = await owner.uploadFile(await randomArchive()).catch((error: unknown) => error);
    assert.ok(upload instanceof ApiError, 'a file was stored on a full disk');
    assert.equal(upload.status, 507, JSON.stringify(upload.body));
    assert.equal(upload.body.message, DISK_FULL);

    // A workspace is several rows (the workspace, its build, the build's job, its parameters) written
    // together; a long parameter value makes the last of them the one that finds no room.
    const creating = await owner
      .createWorkspace('me', {
        template_id: template.id,
        name: 'dev',
        rich_parameter_values: [{ name: 'note', value: 'x'.repeat(LONG_VALUE) }],
      })
      .catch((error: unknown) => error);
    assert.ok(creating instanceof ApiError, 'a workspace was created on a full disk');
    assert.equal(creating.status, 507, JSON.stringify(creating.body));
    assert.equal(creating.body.message, DISK_FULL);
    assert.deepEqual({ workspaces: await count(test, 'workspaces'), builds: await count(test, 'workspace_builds') }, before);

    const lines = log.lines().join('\n');
    assert.match(lines, /the disk holding the database is full: free space on it/);
    assert.doesNotMatch(lines, /cannot rollback/);

    // Space is freed: the same requests go through.
    await limitPages(test, 1_073_741_823);
    const workspace = await owner.createWorkspace('me', {
      template_id: template.id,
      name: 'dev',
      rich_parameter_values: [{ name: 'note', value: 'x'.repeat(LONG_VALUE) }],
    });
    assert.equal(workspace.name, 'dev');
    await owner.uploadFile(await randomArchive());
    assert.equal(await count(test, 'workspaces'), before.workspaces + 1);
  });
});

/** Mounts a small tmpfs of its own, or says why it cannot (not root, no mount in this container). */
function mountSmallDisk(): { readonly path: string; unmount(): void } | string {
  if (process.getuid?.() !== 0) return 'mounting a small disk needs root';
  const path = mkdtempSync(join(tmpdir(), 'cove-full-disk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${SMALL_DISK_BYTES}`, 'tmpfs', path], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    rmSync(path, { recursive: true, force: true });
    return `cannot mount a tmpfs here: ${mounted.stderr.trim()}`;
  }
  return {
    path,
    unmount() {
      spawnSync('umount', ['-l', path]);
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** Fills the disk under `directory` to the last byte with one file, and returns that file. */
function fillDisk(directory: string): string {
  const filler = join(directory, 'filler');
  const chunk = Buffer.alloc(64 * 1024);
  const fd = openSync(filler, 'w');
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  // The last chunk may not have fit whole: fill what is left byte by byte-sized writes.
  const small = openSync(filler, 'a');
  try {
    for (;;) writeSync(small, Buffer.alloc(512));
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(small);
  }
  return filler;
}

describe('a disk that is really full under SQLite', () => {
  const disk = mountSmallDisk();
  const skip = typeof disk === 'string' ? disk : false;
  let test: TestDaemon;
  let owner: CoveClient;
  let template: Template;
  const log = capturingLogger();

  before(async () => {
    if (typeof disk === 'string') return;
    test = await startTestDaemon({ database: 'sqlite', logger: log.logger, flags: { dataDir: disk.path, provisionerDaemons: '1' } });
    owner = await createOwner(test);
    ({ template } = await createEchoTemplate(owner, 'echo', ECHO));
  });
  after(async () => {
    if (typeof disk === 'string') return;
    await test?.close();
    disk.unmount();
  });

  it('answers 507 and logs that the disk is full, not that a rollback failed; serves again once a file is removed', { skip }, async () => {
    assert.ok(typeof disk !== 'string');
    const before = { workspaces: await count(test, 'workspaces'), builds: await count(test, 'workspace_builds') };
    const filler = fillDisk(disk.path);
    // In a transaction, as creating a workspace is: SQLite rolls the whole of it back when the disk
    // is full, and the rollback that follows finds no transaction. The write-ahead log is reused
    // from its start once checkpointed, so a write meets the full disk once it is larger than that.
    let refused: unknown;
    const created: string[] = [];
    for (let size = 16 * 1024; size <= SMALL_DISK_BYTES && !refused; size *= 2) {
      const values = [{ name: 'note', value: 'x'.repeat(size) }];
      refused = await owner.createWorkspace('me', { template_id: template.id, name: `dev-${size}`, rich_parameter_values: values }).then(
        (workspace) => void created.push(workspace.name),
        (error: unknown) => error,
      );
    }
    assert.ok(refused instanceof ApiError, `no write failed on a full disk: ${String(refused)}`);
    assert.equal(refused.status, 507, JSON.stringify(refused.body));
    assert.equal(refused.body.message, DISK_FULL);
    const lines = log.lines().join('\n');
    assert.match(lines, /the disk holding the database is full: free space on it/);
    assert.doesNotMatch(lines, /cannot rollback/);
    // Nothing of the refused workspace: neither it nor a build of it.
    assert.deepEqual((await owner.workspaces()).workspaces.map((workspace) => workspace.name).sort(), created.sort());
    assert.equal(await count(test, 'workspaces'), before.workspaces + created.length);
    assert.equal(await count(test, 'workspace_builds'), before.builds + created.length);

    rmSync(filler);
    const after = await owner.createWorkspace('me', { template_id: template.id, name: 'after' });
    assert.equal(after.name, 'after');
  });
});
