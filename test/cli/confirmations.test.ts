import assert from 'node:assert/strict';
import { dirname, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import type { CoveClient } from '../../src/sdk/client.js';
import { CliUser } from '../helpers/run-cli.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

/** Runs bin/cove on a terminal as `user`, answering its one question with `answer`. */
async function onTerminal(user: CliUser, args: readonly string[], answer: string): Promise<{ code: number; output: string }> {
  const { CI: _ci, ...env } = process.env;
  const terminal = pty.spawn(COVE, [...args], {
    cols: 200,
    rows: 30,
    env: { ...env, COVE_CONFIG_DIR: user.configDir, COVE_SECRET_STORE: 'file', ...user.env },
  });
  let output = '';
  terminal.onData((data) => (output += data));
  const exited = new Promise<number>((resolvePromise) => terminal.onExit(({ exitCode }) => resolvePromise(exitCode)));
  const deadline = Date.now() + 30_000;
  // The question may end in terminal control codes: wait for its words, not for the line's end.
  while (!output.includes('[y/N]') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(output.includes('[y/N]'), `no question within 30 s:\n${output}`);
  terminal.write(`${answer}\r`);
  return { code: await exited, output };
}

describe('confirmations: one rule for the commands that cannot be undone', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  const admin = new CliUser();
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
    assert.equal((await admin.run('login', test.url, '--token', owner.token ?? '')).code, 0);
  });
  after(async () => test.close());

  const organizationNames = async () => (await owner.organizations()).map((o) => o.name);

  it('orgs delete refuses without a terminal unless -y', async () => {
    assert.equal((await admin.run('orgs', 'create', 'scratch')).code, 0);
    const refused = await admin.run('orgs', 'delete', 'scratch');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: Deleting organization "scratch" needs confirmation\.$/m);
    assert.match(refused.stderr, /^hint: Pass -y to go ahead without asking\.$/m);
    assert.ok((await organizationNames()).includes('scratch'));
    const deleted = await admin.run('orgs', 'delete', 'scratch', '--yes');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.ok(!(await organizationNames()).includes('scratch'));
  });

  it('provisioner keys delete refuses without a terminal unless -y', async () => {
    assert.equal((await admin.run('provisioner', 'keys', 'create', 'spare')).code, 0);
    const refused = await admin.run('provisioner', 'keys', 'delete', 'spare');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Deleting provisioner key "spare" needs confirmation/);
    assert.ok((await owner.provisionerKeys('default')).some((key) => key.name === 'spare'));
    const deleted = await admin.run('provisioner', 'keys', 'rm', 'spare', '-y');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.ok(!(await owner.provisionerKeys('default')).some((key) => key.name === 'spare'));
  });

  it('on a terminal, orgs delete and provisioner keys delete ask, and only yes goes ahead', async () => {
    assert.equal((await admin.run('orgs', 'create', 'asked')).code, 0);
    const declined = await onTerminal(admin, ['orgs', 'delete', 'asked'], 'n');
    assert.equal(declined.code, 1, declined.output);
    assert.match(declined.output, /Delete organization "asked"\?.*\[y\/N\][\s\S]*Canceled: nothing was deleted/);
    assert.ok((await organizationNames()).includes('asked'));
    const agreed = await onTerminal(admin, ['orgs', 'delete', 'asked'], 'y');
    assert.equal(agreed.code, 0, agreed.output);
    assert.ok(!(await organizationNames()).includes('asked'));

    assert.equal((await admin.run('provisioner', 'keys', 'create', 'asked-key')).code, 0);
    const key = await onTerminal(admin, ['provisioner', 'keys', 'delete', 'asked-key'], 'yes');
    assert.equal(key.code, 0, key.output);
    assert.match(key.output, /Delete provisioner key "asked-key"\?/);
    assert.ok(!(await owner.provisionerKeys('default')).some((k) => k.name === 'asked-key'));
  });
});
