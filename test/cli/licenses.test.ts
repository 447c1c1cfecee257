import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { CoveClient } from '../../src/sdk/client.js';
import type { Entitlements, License, Template, WorkspaceBuild } from '../../src/sdk/wire/index.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { TestLicenseIssuer } from '../helpers/licenses.js';
import { CliUser } from '../helpers/run-cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const MINUTE = 60_000;
const NOT_IN_EFFECT = '(stored; not in effect: needs a license with advanced template scheduling)';

describe('cove licenses, cove features and the advanced scheduling gate', () => {
  const issuer = new TestLicenseIssuer();
  const admin = new CliUser();
  const work = mkdtempSync(join(tmpdir(), 'cove-licenses-'));
  let test: TestDaemon;
  let client: CoveClient;

  /** Writes a license with advanced template scheduling, issued now by the daemon's clock, to a file. */
  async function licenseFile(name: string): Promise<string> {
    const path = join(work, name);
    writeFileSync(path, `${await issuer.license({ now: test.clock.now(), features: { advanced_template_scheduling: 1 } })}\n`);
    return path;
  }

  async function cli(...args: string[]): Promise<string> {
    const result = await admin.run(...args);
    assert.equal(result.code, 0, `cove ${args.join(' ')}: ${result.stderr}${result.stdout}`);
    return result.stdout;
  }

  async function settled(build: WorkspaceBuild): Promise<WorkspaceBuild> {
    await client.followWorkspaceBuildLogs(build.id, () => undefined);
    return client.workspaceBuild(build.id);
  }

  before(async () => {
    // Sessions outlive the minutes the clock is moved by.
    test = await startTestDaemon({
      flags: { provisionerDaemons: '2', sessionDurationMs: '100000h', licensePublicKeys: issuer.trustEntry },
    });
    await admin.signUpFirstUser(test.url, { email: 'admin@example.com', username: 'admin' });
    client = new CoveClient({ url: test.url, token: admin.savedToken() });
  });
  after(async () => test.close());

  it('adds a license from a file, lists it, shows the features it entitles, refuses a bad one, deletes it', async () => {
    const file = await licenseFile('first.license');
    const added = await cli('licenses', 'add', file);
    const [, id, uuid] = /^Added license (\d+) \(([0-9a-f-]{36})\)\.$/m.exec(added) ?? [];
    assert.ok(id && uuid, added);

    const listed = JSON.parse(await cli('licenses', 'list', '-o', 'json')) as License[];
    assert.deepEqual(
      listed.map((l) => [l.id, l.uuid, l.claims['account_id']]),
      [[Number(id), uuid, 'test']],
    );
    assert.match(await cli('licenses', 'list'), new RegExp(`^ID\\s+UUID\\s+ACCOUNT\\s+EXPIRES\\s+UPLOADED\\n${id}\\s+${uuid}\\s+test\\s`));

    assert.match(await cli('features', 'list'), /advanced_template_scheduling\s+entitled\s+true/);
    assert.match(await cli('features', 'list'), /audit_log\s+not_entitled\s+false/);
    const entitlements = JSON.parse(await cli('features', 'list', '-o', 'json')) as Entitlements;
    assert.equal(entitlements.has_license, true);

    const forged = join(work, 'forged.license');
    const stranger = generateKeyPairSync('ed25519').privateKey;
    writeFileSync(
      forged,
      await new SignJWT(issuer.claims({ now: test.clock.now() })).setProtectedHeader({ alg: 'EdDSA', kid: issuer.kid }).sign(stranger),
    );
    const refused = await admin.run('licenses', 'add', '--file', forged);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Invalid license/);
    assert.match(refused.stderr, /signature does not verify/);
    const missing = await admin.run('licenses', 'add', join(work, 'no-such.license'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Cannot read the license file/);
    assert.equal((await client.licenses()).length, 1, 'nothing more stored');

    assert.match(await cli('licenses', 'delete', String(id)), new RegExp(`Deleted license ${id}\\.`));
    const byToken = JSON.parse(
      await cli('licenses', 'add', await issuer.license({ now: test.clock.now(), features: { audit_log: 1 } }), '-o', 'json'),
    ) as License;
    assert.deepEqual(byToken.claims['features'], { audit_log: 1 }, 'a token given as the argument is the license itself');
    await cli('licenses', 'delete', String(byToken.id));
    assert.deepEqual(await client.licenses(), []);
    assert.equal((JSON.parse(await cli('features', 'list', '-o', 'json')) as Entitlements).has_license, false);
  });

  it('a failure TTL is stored but acts only while a license with advanced template scheduling is present', async () => {
    const { template } = await createEchoTemplate(client, 'flaky', { apply: { start: { error: 'no capacity' } } });

    // Unlicensed: the setting is kept, and the CLI says it does nothing.
    const json = await admin.run('templates', 'edit', 'flaky', '--failure-ttl', '3m', '-o', 'json');
    assert.equal(json.code, 0, json.stderr);
    assert.equal((JSON.parse(json.stdout) as Template).failure_ttl_ms, 3 * MINUTE);
    assert.match(json.stderr, /note: failure_ttl_ms: stored; not in effect: needs a license with advanced template scheduling/);
    const edited = await cli('templates', 'edit', 'flaky', '--failure-ttl', '2m');
    assert.ok(edited.includes(`failure ttl:`) && edited.includes(`0h2m0s ${NOT_IN_EFFECT}`), edited);
    assert.match(await cli('templates', 'show', 'flaky'), /failure ttl:\s+0h2m0s \(stored; not in effect/);
    assert.doesNotMatch(await cli('templates', 'show', 'flaky'), /dormancy threshold:.*not in effect/, 'off settings need no note');
    assert.equal((await client.template(template.id)).failure_ttl_ms, 2 * MINUTE);
    assert.deepEqual((await client.template(template.id)).settings_not_in_effect, ['failure_ttl_ms'], 'the API answer says it too');

    const workspace = await client.createWorkspace('me', { name: 'flaky', template_id: template.id });
    assert.equal((await settled(workspace.latest_build)).status, 'failed');
    test.clock.advance(3 * MINUTE);
    await test.daemon.tasks.autobuild.runNow();
    let builds = await client.workspaceBuilds(workspace.id);
    assert.deepEqual(
      builds.map((b) => [b.transition, b.status]),
      [['start', 'failed']],
      'past the failure TTL, but without a license nothing stops the workspace',
    );

    // Licensed: the same overdue workspace is stopped by the next tick.
    const added = await cli('licenses', 'add', await licenseFile('scheduling.license'));
    const [, licenseId = ''] = /Added license (\d+)/.exec(added) ?? [];
    const shown = await cli('templates', 'show', 'flaky');
    assert.match(shown, /failure ttl:\s+0h2m0s\n/);
    assert.doesNotMatch(shown, /not in effect/);
    assert.deepEqual((await client.template(template.id)).settings_not_in_effect, []);
    await test.daemon.tasks.autobuild.runNow();
    builds = await client.workspaceBuilds(workspace.id);
    assert.equal(builds.length, 2);
    const stop = await settled(builds[0] as WorkspaceBuild);
    assert.deepEqual([stop.transition, stop.reason, stop.status], ['stop', 'autostop', 'stopped']);

    // The workspace fails again; with the license deleted, the TTL does nothing once more.
    const restart = await client.createWorkspaceBuild(workspace.id, { transition: 'start' });
    assert.equal((await settled(restart)).status, 'failed');
    await cli('licenses', 'delete', licenseId);
    assert.match(await cli('templates', 'show', 'flaky'), /failure ttl:\s+0h2m0s \(stored; not in effect/);
    test.clock.advance(3 * MINUTE);
    await test.daemon.tasks.autobuild.runNow();
    builds = await client.workspaceBuilds(workspace.id);
    assert.deepEqual(
      builds.map((b) => [b.transition, b.status]),
      [
        ['start', 'failed'],
        ['stop', 'stopped'],
        ['start', 'failed'],
      ],
      'the license is gone: the failed start stays',
    );

    // The workspace was overdue all along: a license again, and the same tick stops it.
    const again = await cli('licenses', 'add', await licenseFile('again.license'));
    await test.daemon.tasks.autobuild.runNow();
    const [latest] = await client.workspaceBuilds(workspace.id);
    assert.ok(latest);
    assert.deepEqual([latest.transition, latest.reason], ['stop', 'autostop']);
    await settled(latest);
    await cli('licenses', 'delete', /Added license (\d+)/.exec(again)?.[1] ?? '');
  });

  it('accepts a license signed by scripts/sign-license.mjs with a key given on its command line', async () => {
    const key = join(work, 'issuer.pem');
    writeFileSync(key, issuer.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const signed = spawnSync(
      process.execPath,
      ['scripts/sign-license.mjs', '--key', key, '--kid', issuer.kid, '--features', 'audit_log,user_limit=50', '--days', '20'],
      { encoding: 'utf8' },
    );
    assert.equal(signed.status, 0, signed.stderr);
    writeFileSync(join(work, 'signed.license'), signed.stdout);
    // The script signs at the wall clock's time.
    test.clock.set(new Date());
    const added = JSON.parse(await cli('licenses', 'add', join(work, 'signed.license'), '-o', 'json')) as License;
    assert.deepEqual(added.claims['features'], { audit_log: 1, user_limit: 50 });
    const entitlements = JSON.parse(await cli('features', 'list', '-o', 'json')) as Entitlements;
    assert.deepEqual(entitlements.features['user_limit'], { entitlement: 'entitled', enabled: true, limit: 50, actual: 1 });
    assert.deepEqual(entitlements.warnings, ['Your license expires in 20 days.']);
    const listed = await admin.run('features', 'list');
    assert.match(listed.stderr, /warning: Your license expires in 20 days\./);
    await cli('licenses', 'delete', String(added.id));
  });
});
