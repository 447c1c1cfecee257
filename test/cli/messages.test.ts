import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CliUser } from '../helpers/run-cli.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('CLI messages a person can act on', () => {
  let test: TestDaemon;
  const admin = new CliUser();
  before(async () => {
    test = await startTestDaemon();
    const owner = await createOwner(test);
    await createMember(test, 'bob');
    assert.equal((await admin.run('login', test.url, '--token', owner.token ?? '')).code, 0);
  });
  after(async () => test.close());

  it('login --token with a bogus token says the token is not valid, not that a session expired', async () => {
    const result = await new CliUser().run('login', test.url, '--token', 'bogus');
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`^error: The token is not valid on ${test.url}\\.$`, 'm'));
    assert.doesNotMatch(result.stderr, /expired\. Please sign in again|Run "cove login" to sign in again/);
  });

  it('names the organization by its name, not by the "default" the flag defaults to', async () => {
    const result = await admin.run('templates', 'delete', 'nope', '-y');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /No template named "nope" in organization cove\./);
  });

  it("turns the validator's wording into a sentence", async () => {
    const result = await admin.run('users', 'create', '--email', 'x@example.com', '--username', 'bad_name');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /"bad_name" is not a valid username: it must be alphanumeric with hyphens\./);
    assert.doesNotMatch(result.stderr, /Validation failed for tag/);
  });

  it('an unknown role lists the valid ones', async () => {
    const site = await admin.run('users', 'roles', 'bob', 'no-such-role');
    assert.equal(site.code, 1);
    assert.match(site.stderr, /^error: "no-such-role" is not a (supported )?role/m);
    assert.match(site.stderr, /^hint: Valid roles: .*template-admin/m);
    const member = await admin.run('orgs', 'members', 'roles', 'bob', 'organization-admin', 'nope', 'nah');
    assert.equal(member.code, 1);
    assert.match(member.stderr, /^error: "nope", "nah" are not roles in organization cove\.$/m);
    assert.match(member.stderr, /^hint: Valid roles: .*organization-admin/m);
  });

  it('counts the members in the way of deleting an organization, in the right number', async () => {
    assert.equal((await admin.run('orgs', 'create', 'crowd')).code, 0);
    assert.equal((await admin.run('orgs', 'members', 'add', 'bob', '--org', 'crowd')).code, 0);
    const result = await admin.run('orgs', 'delete', 'crowd', '-y');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /organization has 2 members; 1 of them is not an organization admin and must be removed first/);
  });
});
