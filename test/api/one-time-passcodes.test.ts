import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../../src/domain/passwords.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError, rawRequest } from '../helpers/expect-api-error.js';
import { SmtpReceiver } from '../helpers/smtp-receiver.js';
import { capturingLogger, createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

const NEW_PASSWORD = 'Another-Long-Passphrase-7';

function passcodeIn(mail: string): string {
  const match = /Passcode: ([0-9a-f-]{36})/.exec(mail);
  assert.ok(match?.[1], `no passcode in the mail:\n${mail}`);
  return match[1];
}

describe('one-time passcode password reset over SMTP', () => {
  let test: TestDaemon;
  let smtp: SmtpReceiver;
  let alice: CoveClient;
  before(async () => {
    smtp = await SmtpReceiver.start();
    test = await startTestDaemon({
      flags: {
        emailSmtpHost: smtp.hostPort,
        emailSmtpFrom: 'cove@example.com',
        emailSmtpUsername: 'mailer',
        emailSmtpPassword: 'mail-secret',
      },
    });
    await createOwner(test);
    alice = await createMember(test, 'alice');
  });
  after(async () => {
    await test.close();
    await smtp.close();
  });

  it('mails a passcode that resets the password once, ends every session, and then is spent', async () => {
    await test.anonymous.requestOneTimePasscode('alice@example.com');
    const mail = await smtp.waitForMessage(1);
    assert.deepEqual(mail.to, ['alice@example.com']);
    assert.equal(mail.from, 'cove@example.com');
    assert.equal(mail.auth, '\0mailer\0mail-secret');
    const passcode = passcodeIn(mail.data);

    const weak = await expectApiError(
      test.anonymous.changePasswordWithPasscode({ email: 'alice@example.com', one_time_passcode: passcode, password: 'short' }),
      400,
    );
    assert.equal(weak.message, 'Invalid password.');
    assert.deepEqual(
      weak.body.validations?.map((v) => v.field),
      ['password'],
    );
    const wrong = await expectApiError(
      test.anonymous.changePasswordWithPasscode({ email: 'alice@example.com', one_time_passcode: 'not-it', password: NEW_PASSWORD }),
      400,
    );
    assert.equal(wrong.message, 'Incorrect email or one-time passcode.');
    const same = await expectApiError(
      test.anonymous.changePasswordWithPasscode({ email: 'alice@example.com', one_time_passcode: passcode, password: STRONG_PASSWORD }),
      400,
    );
    assert.equal(same.message, 'New password cannot match old password.');

    await test.anonymous.changePasswordWithPasscode({ email: 'alice@example.com', one_time_passcode: passcode, password: NEW_PASSWORD });
    await expectApiError(alice.user('me'), 401);
    await expectApiError(test.anonymous.login('alice@example.com', STRONG_PASSWORD), 401);
    await test.anonymous.login('alice@example.com', NEW_PASSWORD);
    const reused = await expectApiError(
      test.anonymous.changePasswordWithPasscode({
        email: 'alice@example.com',
        one_time_passcode: passcode,
        password: 'Yet-Another-Passphrase-3',
      }),
      400,
    );
    assert.equal(reused.message, 'Incorrect email or one-time passcode.');
  });

  it('refuses a passcode after 20 minutes', async () => {
    await createMember(test, 'bob');
    const before = smtp.messages.length;
    await test.anonymous.requestOneTimePasscode('bob@example.com');
    const passcode = passcodeIn((await smtp.waitForMessage(before + 1)).data);
    test.clock.advance(20 * 60 * 1000 + 1);
    await expectApiError(
      test.anonymous.changePasswordWithPasscode({ email: 'bob@example.com', one_time_passcode: passcode, password: NEW_PASSWORD }),
      400,
    );
  });

  it('answers 204 for an unknown email and sends nothing', async () => {
    const before = smtp.messages.length;
    await test.anonymous.requestOneTimePasscode('nobody@example.com');
    await test.anonymous.requestOneTimePasscode('alice@example.com');
    const next = await smtp.waitForMessage(before + 1);
    assert.deepEqual(next.to, ['alice@example.com'], 'the first mail after both requests is for the known address');
    const malformed = await rawRequest(test.url, 'POST', '/users/otp/request', {
      body: JSON.stringify({ email: 'not an email' }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
  });
});

describe('one-time passcodes without a mail server', () => {
  it('still answers 204 and logs that it could not send, never the passcode', async () => {
    const capture = capturingLogger();
    const test = await startTestDaemon({ logger: capture.logger });
    try {
      await createOwner(test);
      await createMember(test, 'carol');
      await test.anonymous.requestOneTimePasscode('carol@example.com');
      const deadline = Date.now() + 5000;
      while (!capture.lines().some((line) => line.includes('could not send the one-time passcode'))) {
        assert.ok(Date.now() < deadline, 'the delivery failure was not logged');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const row = await test.daemon.store.db
        .selectFrom('users')
        .select(['hashed_one_time_passcode', 'one_time_passcode_expires_at'])
        .where('username', '=', 'carol')
        .executeTakeFirstOrThrow();
      assert.ok(row.hashed_one_time_passcode, 'a passcode hash was stored');
      // Every UUID in the log (request ids, user ids) is checked against the stored hash.
      const logged = capture.lines().join('\n');
      for (const candidate of logged.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? []) {
        assert.equal(await verifyPassword(candidate, row.hashed_one_time_passcode), false, 'the passcode was logged');
      }
      const failureLines = capture.lines().filter((line) => line.includes('one-time passcode'));
      assert.match(failureLines.join('\n'), /email delivery is not configured/);
    } finally {
      await test.close();
    }
  });

  it('refuses both routes when password sign-in is disabled', async () => {
    const test = await startTestDaemon({ flags: { disablePasswordAuth: 'true' } });
    try {
      await expectApiError(test.anonymous.requestOneTimePasscode('x@example.com'), 403);
      await expectApiError(
        test.anonymous.changePasswordWithPasscode({ email: 'x@example.com', one_time_passcode: 'a', password: NEW_PASSWORD }),
        403,
      );
    } finally {
      await test.close();
    }
  });
});

describe('converting the login type', () => {
  it('refuses types that cannot be targets and providers that are not configured', async () => {
    const test = await startTestDaemon();
    try {
      const owner = await createOwner(test);
      const notConfigured = await expectApiError(owner.convertLogin('me', { to_type: 'oidc', password: STRONG_PASSWORD }), 400);
      assert.equal(notConfigured.message, 'OIDC sign-in is not configured on this deployment.');
      assert.match(notConfigured.body.detail ?? '', /--oidc-issuer-url/);
      await expectApiError(owner.convertLogin('me', { to_type: 'github', password: STRONG_PASSWORD }), 400);
      const password = await expectApiError(owner.convertLogin('me', { to_type: 'password', password: STRONG_PASSWORD }), 400);
      assert.equal(password.message, 'Cannot convert to login type "password".');
      const unknown = await expectApiError(owner.convertLogin('me', { to_type: 'saml', password: STRONG_PASSWORD }), 400);
      assert.equal(unknown.message, 'Unknown login type "saml".');
    } finally {
      await test.close();
    }
  });

  it('starts a conversion for a configured provider with the current password', async () => {
    const test = await startTestDaemon({ flags: { githubClientId: 'client', githubClientSecret: 'secret', githubAllowEveryone: 'true' } });
    try {
      const owner = await createOwner(test);
      const dave = await createMember(test, 'dave');
      await expectApiError(dave.convertLogin('me', { to_type: 'github', password: 'Wrong-Password-123' }), 401);
      await expectApiError(dave.convertLogin('owner', { to_type: 'github', password: STRONG_PASSWORD }), 404);
      const started = await dave.convertLogin('me', { to_type: 'github', password: STRONG_PASSWORD });
      assert.match(started.state_string, /^convert-[0-9A-Za-z]{32}$/);
      assert.equal(started.to_type, 'github');
      assert.equal(started.user_id, (await dave.user('me')).id);
      assert.equal(Date.parse(started.expires_at) - test.clock.now().getTime(), 5 * 60 * 1000);
      const raw = await rawRequest(test.url, 'POST', '/users/me/convert-login', {
        body: JSON.stringify({ to_type: 'github', password: STRONG_PASSWORD }),
        headers: { 'content-type': 'application/json', 'service-session-token': owner.token ?? '' },
      });
      assert.equal(raw.status, 201);
      assert.match(raw.headers.get('set-cookie') ?? '', /^cove_oauth_convert_jwt=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; HttpOnly/);
    } finally {
      await test.close();
    }
  });
});
