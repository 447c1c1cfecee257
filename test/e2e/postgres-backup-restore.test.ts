import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger, startDaemon } from '../../src/daemon/index.js';
import { resolveOptions } from '../../src/domain/deployment-options.js';
import { CoveClient } from '../../src/sdk/client.js';
import { createTestDatabase, NEEDS_POSTGRES } from '../helpers/databases.js';
import { CliUser } from '../helpers/run-cli.js';
import { startUserWriteLoad } from '../helpers/user-write-load.js';
import { createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

/** A PostgreSQL client program, from the server's installation (not always on PATH). */
function pgTool(name: string): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((version) => join(root, version, 'bin', name)).find((path) => existsSync(path)) ?? name;
}

function run(program: string, args: readonly string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((done) => {
    execFile(program, args, (error, _stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stderr }));
  });
}

describe(
  'PostgreSQL: pg_dump under writes and pg_restore into a fresh database, as docs/operations.md says',
  { skip: NEEDS_POSTGRES },
  () => {
    let test: TestDaemon;
    let owner: CoveClient;
    const work = mkdtempSync(join(tmpdir(), 'cove-pg-backup-'));

    before(async () => {
      test = await startTestDaemon({ database: 'postgres' });
      owner = await createOwner(test);
    });
    after(async () => {
      await test.close();
      rmSync(work, { recursive: true, force: true });
    });

    it('cove server backup names the pg_dump command instead, without the password', async () => {
      const url = new URL(test.database.target.kind === 'postgres' ? test.database.target.url : '');
      url.password = 'hunter2-secret';
      const result = await new CliUser().run('server', 'backup', join(work, 'x.dump'), '--postgres-url', url.toString());
      assert.equal(result.code, 1);
      assert.match(result.stderr, /back it up with pg_dump/);
      assert.match(result.stderr, /pg_dump --format=custom --file="[^"]*x\.dump" "postgres:\/\/cove_ci@/);
      assert.doesNotMatch(result.stderr, /hunter2/);
    });

    it('restores every write acknowledged before the dump began, and serves and signs in after', async () => {
      const organization = test.daemon.identity.defaultOrganization.id;
      const load = await startUserWriteLoad(owner, organization);
      const { acknowledged, failures } = load;

      const beforeDump = [...acknowledged];
      const dump = join(work, 'cove.dump');
      const source = test.database.target.kind === 'postgres' ? test.database.target.url : '';
      const dumped = await run(pgTool('pg_dump'), ['--format=custom', `--file=${dump}`, source]);
      const duringDump = acknowledged.length - beforeDump.length;
      await load.stop();
      assert.equal(dumped.code, 0, dumped.stderr);
      assert.deepEqual(failures, []);
      assert.ok(duringDump > 0, 'writes went on while pg_dump ran');

      const fresh = await createTestDatabase('postgres');
      try {
        const target = fresh.target.kind === 'postgres' ? fresh.target.url : '';
        const restored = await run(pgTool('pg_restore'), ['--no-owner', '--exit-on-error', `--dbname=${target}`, dump]);
        assert.equal(restored.code, 0, restored.stderr);
        const options = resolveOptions({
          flags: { httpAddress: '127.0.0.1:0', dataDir: fresh.dataDir, provisionerDaemons: '0', postgresUrl: target },
          env: {},
        });
        const daemon = await startDaemon(options, { logger: silentLogger() });
        try {
          const anonymous = new CoveClient({ url: daemon.url });
          const { session_token } = await anonymous.login('owner@example.com', STRONG_PASSWORD);
          const { users } = await anonymous.withToken(session_token).users({ limit: 5000 });
          const names = new Set(users.map((user) => user.username));
          assert.deepEqual(
            beforeDump.filter((username) => !names.has(username)),
            [],
            'every write acknowledged before the dump began is in it',
          );
          assert.ok(names.size <= acknowledged.length + 1, 'nothing that was never written');
        } finally {
          await daemon.close();
        }
      } finally {
        await fresh.drop();
      }
    });
  },
);
