import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { silentLogger, startDaemon, type Daemon } from '../../src/daemon/index.js';
import { resolveOptions, type RawValues } from '../../src/domain/deployment-options.js';
import { AesTokenCipher, tokenKeyDigest } from '../../src/store/aes-token-cipher.js';
import { CoveClient } from '../../src/sdk/client.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { startOAuth2Server, type TestOAuth2Server } from '../helpers/oauth2-server.js';
import { CliUser } from '../helpers/run-cli.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';

const keyA = Buffer.alloc(32, 0xa1);
const keyB = Buffer.alloc(32, 0xb2);
const keyC = Buffer.alloc(32, 0xc3);
const digestA = tokenKeyDigest(keyA);
const digestB = tokenKeyDigest(keyB);
const digestC = tokenKeyDigest(keyC);
const base64 = (key: Buffer): string => key.toString('base64');

/** The providers of every daemon here, all served by the one test OAuth2 server. */
const PROVIDERS = ['github', 'gitlab', 'bitbucket'] as const;

interface StoredLink {
  provider_id: string;
  oauth_access_token: string;
  oauth_access_token_key_id: string | null;
  oauth_refresh_token: string;
  oauth_refresh_token_key_id: string | null;
}

for (const kind of TEST_DIALECTS) {
  describe(`tokens encrypted at rest and cove server dbcrypt on ${kind}`, () => {
    let database: TestDatabase;
    let where: string[];
    let oauth: TestOAuth2Server;
    let session: string;
    /** The tokens the provider issued to each link, as the daemon read them back. */
    const issued = new Map<string, { access: string; refresh: string }>();
    const cli = new CliUser();

    /** A daemon on the test database with these settings; closing it leaves the database for the next step. */
    function serve(flags: RawValues = {}): Promise<Daemon> {
      const target = database.target;
      const options = resolveOptions({
        flags: {
          httpAddress: '127.0.0.1:0',
          dataDir: database.dataDir,
          provisionerDaemons: '0',
          ...(target.kind === 'postgres' ? { postgresUrl: target.url } : {}),
          ...flags,
        },
        env: Object.assign({}, ...PROVIDERS.map((id, index) => oauth.env(index, { ID: id, REGEX: `^https://${id}\\.example/` }))) as Record<
          string,
          string
        >,
      });
      return startDaemon(options, { logger: silentLogger() });
    }

    async function withDaemon<T>(flags: RawValues, work: (daemon: Daemon) => Promise<T>): Promise<T> {
      const daemon = await serve(flags);
      try {
        return await work(daemon);
      } finally {
        await daemon.close();
      }
    }

    /** Links `providerId` through the real browser flow: the daemon, then the provider's login and consent, then back. */
    async function link(daemon: Daemon, providerId: string, account: string): Promise<void> {
      const callback = `${daemon.url}/external-auth/${providerId}/callback`;
      await oauth.allowRedirect(callback);
      const visit = (url: string) => fetch(url, { headers: { 'Service-Session-Token': session }, redirect: 'manual' });
      const started = await visit(callback);
      assert.equal(started.status, 307, await started.text());
      const back = await oauth.completeLogin(started.headers.get('location') ?? '', account);
      const done = await visit(back);
      assert.equal(done.status, 307, await done.text());
      const linked = await new CoveClient({ url: daemon.url, token: session }).externalAuth(providerId);
      assert.equal(linked.authenticated, true);
    }

    async function stored(daemon: Daemon): Promise<StoredLink[]> {
      return daemon.store.db
        .selectFrom('external_auth_links')
        .select(['provider_id', 'oauth_access_token', 'oauth_access_token_key_id', 'oauth_refresh_token', 'oauth_refresh_token_key_id'])
        .orderBy('provider_id')
        .execute();
    }

    async function startRefusal(flags: RawValues): Promise<string> {
      try {
        await (await serve(flags)).close();
      } catch (error) {
        return (error as Error).message;
      }
      return 'started';
    }

    before(async () => {
      oauth = await startOAuth2Server();
      database = await createTestDatabase(kind);
      where = database.target.kind === 'postgres' ? ['--postgres-url', database.target.url] : ['--data-dir', database.dataDir];
    });
    after(async () => {
      await database.drop();
      await oauth.close();
    });

    it('refuses keys that are not base64 of 32 bytes, naming the variable', () => {
      assert.throws(
        () => resolveOptions({ env: { COVE_EXTERNAL_TOKEN_ENCRYPTION_KEYS: `${base64(keyA)},${Buffer.alloc(16).toString('base64')}` } }),
        /COVE_EXTERNAL_TOKEN_ENCRYPTION_KEYS.*key 2 is 16 bytes after base64/,
      );
      assert.throws(
        () => resolveOptions({ flags: { externalTokenEncryptionKeys: 'not*base64' } }),
        /--external-token-encryption-keys.*not base64/,
      );
      const shown = resolveOptions({ flags: { externalTokenEncryptionKeys: base64(keyA) } });
      assert.deepEqual(shown.values.externalTokenEncryptionKeys, [base64(keyA)]);
    });

    it('seals tokens with the key, keeps them out of the database file, and refuses to start without that key', async () => {
      await withDaemon({ externalTokenEncryptionKeys: base64(keyA) }, async (daemon) => {
        const anonymous = new CoveClient({ url: daemon.url });
        await anonymous.createFirstUser({ email: 'alice@example.com', username: 'alice', password: STRONG_PASSWORD });
        session = (await anonymous.login('alice@example.com', STRONG_PASSWORD)).session_token;
        await link(daemon, 'github', 'alice-on-github');
        await link(daemon, 'gitlab', 'alice-on-gitlab');
        const rows = await stored(daemon);
        assert.deepEqual(
          rows.map((row) => row.provider_id),
          ['github', 'gitlab'],
        );
        for (const row of rows) {
          assert.equal(row.oauth_access_token_key_id, digestA);
          assert.equal(row.oauth_refresh_token_key_id, digestA);
          const access = new AesTokenCipher([keyA]).open({ value: row.oauth_access_token, keyId: digestA });
          const refresh = new AesTokenCipher([keyA]).open({ value: row.oauth_refresh_token, keyId: digestA });
          assert.equal(await oauth.isLiveAccessToken(access), true, 'the sealed column holds the token the provider issued');
          assert.notEqual(refresh, '');
          assert.notEqual(row.oauth_access_token, access);
          issued.set(row.provider_id, { access, refresh });
        }
        const keys = await daemon.store.db.selectFrom('dbcrypt_keys').selectAll().execute();
        assert.deepEqual(
          keys.map((key) => [key.number, key.active_key_digest, key.revoked_key_digest]),
          [[1, digestA, null]],
        );
        assert.equal(new AesTokenCipher([keyA]).open({ value: keys[0]?.test ?? '', keyId: digestA }), 'cove');
        if (kind === 'sqlite') {
          // While the daemon runs, its writes sit in the write-ahead log beside the file: both are read.
          const files = [database.target.kind === 'sqlite' ? database.target.file : ''].flatMap((file) => [file, `${file}-wal`]);
          const secrets = [...issued.values()].flatMap((tokens) => [tokens.access, tokens.refresh]);
          let readable = '';
          for (const file of files.filter((path) => existsSync(path))) {
            const bytes = readFileSync(file);
            for (const secret of secrets) assert.equal(bytes.includes(secret), false, `${secret} is readable in ${file}`);
            const strings = spawnSync('strings', [file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
            if (strings.error !== undefined) continue;
            for (const secret of secrets) assert.equal(strings.stdout.includes(secret), false, `strings finds ${secret} in ${file}`);
            readable += strings.stdout;
          }
          if (spawnSync('strings', ['--version']).error === undefined) {
            assert.match(readable, /alice@example\.com/, 'strings does read what the daemon wrote');
          }
        }
      });
      assert.match(await startRefusal({}), new RegExp(`encrypted with key ${digestA}, and no encryption keys are given`));
      const missing = await startRefusal({ externalTokenEncryptionKeys: base64(keyB) });
      assert.match(missing, new RegExp(`encrypted with key ${digestA}, which --external-token-encryption-keys .* does not give`));
      assert.match(missing, /cove server dbcrypt rotate/);
    });

    it('rotate moves every token to the new key and revokes the old one, which the daemon then refuses first', async () => {
      const unconfirmed = await cli.run('server', 'dbcrypt', 'rotate', '--new-key', base64(keyB), '--old-keys', base64(keyA), ...where);
      assert.equal(unconfirmed.code, 1);
      assert.match(unconfirmed.stderr, /needs confirmation/);
      const badKey = await cli.run('server', 'dbcrypt', 'rotate', '--new-key', base64(keyB), '--old-keys', 'c2hvcnQ=', '-y', ...where);
      assert.equal(badKey.code, 1);
      assert.match(badKey.stderr, /key 1 of --old-keys is 5 bytes after base64/);
      const withoutOld = await cli.run('server', 'dbcrypt', 'rotate', '--new-key', base64(keyB), '-y', ...where);
      assert.equal(withoutOld.code, 1, 'the tokens of key A cannot be opened without it');
      assert.match(withoutOld.stderr, new RegExp(`encrypted with key ${digestA}`));

      const rotated = await cli.run(
        'server',
        'dbcrypt',
        'rotate',
        '--new-key',
        base64(keyB),
        '--old-keys',
        base64(keyA),
        '-y',
        ...where,
        '-o',
        'json',
      );
      assert.equal(rotated.code, 0, rotated.stderr);
      assert.deepEqual(JSON.parse(rotated.stdout), { links: 2, revoked_keys: [digestA], active_key: digestB });

      assert.match(
        await startRefusal({ externalTokenEncryptionKeys: `${base64(keyA)},${base64(keyB)}` }),
        new RegExp(`key ${digestA}\\) was revoked`),
      );
      await withDaemon({ externalTokenEncryptionKeys: base64(keyB) }, async (daemon) => {
        const rows = await stored(daemon);
        assert.equal(rows.length, 2);
        for (const row of rows) {
          const tokens = issued.get(row.provider_id);
          assert.equal(row.oauth_access_token_key_id, digestB);
          assert.equal(row.oauth_refresh_token_key_id, digestB);
          assert.equal(new AesTokenCipher([keyB]).open({ value: row.oauth_access_token, keyId: digestB }), tokens?.access);
          assert.equal(new AesTokenCipher([keyB]).open({ value: row.oauth_refresh_token, keyId: digestB }), tokens?.refresh);
          assert.throws(() => new AesTokenCipher([keyA]).open({ value: row.oauth_access_token, keyId: digestB }));
          // The daemon reads the link with the new key alone.
          assert.equal((await new CoveClient({ url: daemon.url, token: session }).externalAuth(row.provider_id)).authenticated, true);
        }
        const keys = await daemon.store.db.selectFrom('dbcrypt_keys').selectAll().orderBy('number').execute();
        assert.deepEqual(
          keys.map((key) => [key.active_key_digest, key.revoked_key_digest, key.revoked_at !== null]),
          [
            [null, digestA, true],
            [digestB, null, false],
          ],
        );
      });
    });

    it('decrypt stores the tokens as plain text and revokes the key: the daemon starts without keys', async () => {
      const decrypted = await cli.run('server', 'dbcrypt', 'decrypt', '--keys', base64(keyB), '--yes', ...where);
      assert.equal(decrypted.code, 0, decrypted.stderr);
      assert.match(decrypted.stdout, /Stored the tokens of 2 links as plain text\./);
      assert.match(decrypted.stdout, new RegExp(`Revoked keys: ${digestB}\\.`));
      await withDaemon({}, async (daemon) => {
        const rows = await stored(daemon);
        assert.deepEqual(
          rows.map((row) => [
            row.provider_id,
            row.oauth_access_token,
            row.oauth_access_token_key_id,
            row.oauth_refresh_token,
            row.oauth_refresh_token_key_id,
          ]),
          [
            ['github', issued.get('github')?.access, null, issued.get('github')?.refresh, null],
            ['gitlab', issued.get('gitlab')?.access, null, issued.get('gitlab')?.refresh, null],
          ],
        );
      });
    });

    it('delete removes the links whose tokens are sealed, keeps plain ones, and revokes the keys', async () => {
      await withDaemon({ externalTokenEncryptionKeys: base64(keyC) }, async (daemon) => {
        await link(daemon, 'bitbucket', 'alice-on-bitbucket');
        const sealed = (await stored(daemon)).find((row) => row.provider_id === 'bitbucket');
        assert.equal(sealed?.oauth_access_token_key_id, digestC);
      });
      const kept = await cli.run('server', 'dbcrypt', 'delete', ...where);
      assert.equal(kept.code, 1);
      assert.match(kept.stderr, /needs confirmation/);
      const deleted = await cli.run('server', 'dbcrypt', 'delete', '-y', ...where, '-o', 'json');
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.deepEqual(JSON.parse(deleted.stdout), { links: 1, revoked_keys: [digestC], active_key: null });
      await withDaemon({}, async (daemon) => {
        assert.deepEqual(
          (await stored(daemon)).map((row) => row.provider_id),
          ['github', 'gitlab'],
          'the plain-text links stay',
        );
      });
    });
  });
}
