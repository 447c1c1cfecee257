import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Sqlite from 'better-sqlite3';
import { silentLogger, startDaemon } from '../../src/daemon/index.js';
import { resolveOptions } from '../../src/domain/deployment-options.js';
import { CoveClient } from '../../src/sdk/client.js';
import { RUN_DATABASE } from '../helpers/databases.js';
import { CliUser, type CliResult } from '../helpers/run-cli.js';
import { startUserWriteLoad } from '../helpers/user-write-load.js';
import { createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

/** Runs the built `cove` as its own process, as an operator would beside a running daemon. */
function coveProcess(...args: string[]): Promise<CliResult> {
  return new Promise((done) => {
    execFile(process.execPath, [COVE, ...args], { env: { PATH: process.env['PATH'] ?? '' } }, (error, stdout, stderr) => {
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

function integrity(file: string): string {
  const db = new Sqlite(file, { readonly: true });
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

describe(
  'cove server backup and restore on SQLite',
  { skip: RUN_DATABASE === 'postgres' ? 'SQLite files alone: PostgreSQL is backed up with pg_dump (postgres-backup-restore)' : false },
  () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let organization: string;
    /** The backup the first test takes, which the others use. */
    let backupFile: string;
    const work = mkdtempSync(join(tmpdir(), 'cove-backup-'));
    // The other commands run in this process: loading the daemon's code again in a new one for each costs seconds.
    const cli = new CliUser();
    const cove = (...args: string[]) => cli.run(...args);

    before(async () => {
      test = await startTestDaemon({ database: 'sqlite' });
      owner = await createOwner(test);
      organization = test.daemon.identity.defaultOrganization.id;
    });
    after(async () => {
      await test.close();
      rmSync(work, { recursive: true, force: true });
    });

    it('takes a backup under a stream of writes that restores with every write acknowledged before it, and integrity ok', async () => {
      const load = await startUserWriteLoad(owner, organization);
      const { acknowledged, failures } = load;

      const before = [...acknowledged];
      const output = join(work, 'under-load.db');
      backupFile = output;
      const backup = await coveProcess('server', 'backup', output, '--data-dir', test.database.dataDir, '-o', 'json');
      const duringBackup = acknowledged.length - before.length;
      await load.stop();
      assert.equal(backup.code, 0, backup.stderr);
      assert.deepEqual(failures, []);
      assert.ok(duringBackup > 0, 'writes went on while the backup ran');
      const summary = JSON.parse(backup.stdout) as { output: string; integrity: string; bytes: number; schema_version: number };
      assert.equal(summary.output, output);
      assert.equal(summary.integrity, 'ok');
      assert.ok(summary.bytes > 0);
      assert.equal(integrity(output), 'ok');

      // Restored into a new data directory, where a daemon then starts and serves it.
      const restoredDir = join(work, 'restored');
      const restore = await cove('server', 'restore', output, '--data-dir', restoredDir, '-o', 'json');
      assert.equal(restore.code, 0, restore.stderr);
      const restored = JSON.parse(restore.stdout) as { database: string; previous: string | null };
      assert.equal(restored.database, join(restoredDir, 'cove.db'));
      assert.equal(restored.previous, null);
      assert.equal(integrity(restored.database), 'ok');

      const options = resolveOptions({ flags: { httpAddress: '127.0.0.1:0', dataDir: restoredDir, provisionerDaemons: '0' }, env: {} });
      const daemon = await startDaemon(options, { logger: silentLogger() });
      try {
        const anonymous = new CoveClient({ url: daemon.url });
        const { session_token } = await anonymous.login('owner@example.com', STRONG_PASSWORD);
        const { users } = await anonymous.withToken(session_token).users({ limit: 5000 });
        const names = new Set(users.map((user) => user.username));
        const missing = before.filter((username) => !names.has(username));
        assert.deepEqual(missing, [], 'every write acknowledged before the backup started is in it');
        assert.ok(names.size <= acknowledged.length + 1, 'nothing that was never written');
      } finally {
        await daemon.close();
      }
    });

    it('refuses to write over a file without --force', async () => {
      const output = backupFile;
      const again = await cove('server', 'backup', output, '--data-dir', test.database.dataDir);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /exists already/);
      assert.match(again.stderr, /--force/);
      const forced = await cove('server', 'backup', output, '--data-dir', test.database.dataDir, '--force');
      assert.equal(forced.code, 0, forced.stderr);
      assert.match(forced.stdout, /integrity ok/);
    });

    it('refuses to restore while a daemon serves the database, and leaves it serving', async () => {
      const refused = await coveProcess('server', 'restore', backupFile, '--data-dir', test.database.dataDir);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /is in use: a daemon is serving it/);
      assert.match(refused.stderr, /Stop "cove serve" first/);
      assert.deepEqual(
        readdirSync(test.database.dataDir).filter((name) => name.includes('before-restore')),
        [],
      );
      await owner.users({ limit: 1 });
    });

    it('refuses a file that is not a Cove database, saying so', async () => {
      const text = join(work, 'notes.txt');
      writeFileSync(text, 'not a database at all\n'.repeat(200));
      const notSqlite = await cove('server', 'restore', text, '--data-dir', join(work, 'elsewhere'));
      assert.equal(notSqlite.code, 1);
      assert.match(notSqlite.stderr, /notes\.txt is not a Cove database: file is not a database/);

      const other = join(work, 'other.db');
      const db = new Sqlite(other);
      db.exec('create table things (id integer primary key)');
      db.close();
      const notCove = await cove('server', 'restore', other, '--data-dir', join(work, 'elsewhere'));
      assert.equal(notCove.code, 1);
      assert.match(notCove.stderr, /other\.db is not a Cove database: it has no Cove schema/);

      const newer = join(work, 'newer.db');
      copyFileSync(backupFile, newer);
      const future = new Sqlite(newer);
      future.exec("insert into cove_migrations (version, name, applied_at) values (9999, 'from-the-future', '2030-01-01')");
      future.close();
      const tooNew = await cove('server', 'restore', newer, '--data-dir', join(work, 'elsewhere'));
      assert.equal(tooNew.code, 1);
      assert.match(tooNew.stderr, /was migrated by a newer release \(schema 9999/);
      assert.deepEqual(readdirSync(join(work)).includes('elsewhere'), false, 'nothing was made where it would have gone');
    });
  },
);
