import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { silentLogger, startDaemon, type Daemon } from '../../src/daemon/index.js';
import { resolveOptions } from '../../src/domain/deployment-options.js';
import { NOTIFICATION_KINDS } from '../../src/domain/notifications/catalogue.js';
import { ManualClock } from '../../src/lib/clock.js';
import { CoveClient } from '../../src/sdk/client.js';
import { stop, waitFor } from '../helpers/child-process.js';
import { createTestDatabase, NEEDS_POSTGRES, TEST_DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { CliUser } from '../helpers/run-cli.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');
const SECRET = 'webhook-signing-key';
const TEST_KIND = NOTIFICATION_KINDS.testNotification.id;

/** A real SMTP server (smtp-server) on a loopback port; every mail parsed with mailparser. */
class MailServer {
  readonly mails: (ParsedMail & { readonly envelopeTo: readonly string[] })[] = [];
  readonly #server: SMTPServer;

  constructor() {
    this.#server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const envelopeTo = session.envelope.rcptTo.map((rcpt) => rcpt.address);
        simpleParser(stream)
          .then((mail) => {
            this.mails.push(Object.assign(mail, { envelopeTo }));
            callback();
          })
          .catch(callback);
      },
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((done) => this.#server.listen(0, '127.0.0.1', done));
    return `127.0.0.1:${(this.#server.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((done) => this.#server.close(() => done()));
  }
}

/** One request the webhook receiver got. */
interface Hook {
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A webhook receiver on loopback that answers with the statuses it is given, then 200. */
class HookReceiver {
  readonly hooks: Hook[] = [];
  statuses: number[] = [];
  readonly #server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      this.hooks.push({ headers: request.headers, body });
      response.statusCode = this.statuses.shift() ?? 200;
      response.end();
    });
  });

  async listen(): Promise<string> {
    await new Promise<void>((done) => this.#server.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
  }

  close(): Promise<void> {
    return new Promise((done) => this.#server.close(() => done()));
  }
}

/** Checks the signature header as a receiver would: the HMAC of "<t>.<body>" with the shared secret. */
function verifySignature(hook: Hook): void {
  const header = String(hook.headers['x-cove-signature'] ?? '');
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  assert.ok(match, `a signature header of the documented form, not "${header}"`);
  const expected = createHmac('sha256', SECRET).update(`${match[1]}.${hook.body}`).digest();
  assert.ok(timingSafeEqual(expected, Buffer.from(match[2] ?? '', 'hex')), 'the signature is the HMAC of the body');
}

describe('notification delivery to real servers on loopback', () => {
  const mail = new MailServer();
  const receiver = new HookReceiver();
  let test: TestDaemon;
  let owner: CoveClient;
  const dispatch = () => test.daemon.tasks.notifications.runNow();

  before(async () => {
    const smtp = await mail.listen();
    const endpoint = await receiver.listen();
    test = await startTestDaemon({
      flags: {
        emailSmtpHost: smtp,
        emailSmtpFrom: 'cove@example.com',
        notificationsWebhookEndpoint: endpoint,
        notificationsWebhookSecret: SECRET,
        notificationsRetryIntervalMs: '1m',
        notificationsInboxEnabled: 'false',
      },
    });
    owner = await createOwner(test);
    await createMember(test, 'member');
  });
  after(async () => {
    await test.close();
    await mail.close();
    await receiver.close();
  });

  it('sends the test notification as an HTML and text mail to the caller and as a signed webhook', async () => {
    await owner.testNotification();
    await dispatch();
    await eventually(() => assert.equal(mail.mails.length, 1));
    const [sent] = mail.mails;
    assert.deepEqual(sent?.envelopeTo, ['owner@example.com']);
    assert.equal(sent?.subject, 'A test notification');
    const link = `${test.daemon.url}/deployment/notifications`;
    assert.match(sent?.text ?? '', /Hi owner, this is a test notification/);
    assert.ok(sent?.text?.includes(`View notification settings: ${link}`), sent?.text);
    assert.ok(typeof sent?.html === 'string' && sent.html.includes(`<a href="${link}">View notification settings</a>`), String(sent?.html));

    assert.equal(receiver.hooks.length, 1);
    const [hook] = receiver.hooks;
    assert.ok(hook);
    verifySignature(hook);
    const body = JSON.parse(hook.body) as Record<string, unknown>;
    assert.equal(hook.headers['x-cove-notification-id'], body['id']);
    assert.equal(body['kind_id'], TEST_KIND);
    assert.equal(body['kind_name'], 'Test Notification');
    assert.equal(body['title'], 'A test notification');
    assert.equal(body['user_email'], 'owner@example.com');
    assert.equal(body['user_username'], 'owner');
    assert.deepEqual(body['actions'], [{ label: 'View notification settings', url: link }]);
    // A forged body fails the same check.
    assert.throws(() => verifySignature({ ...hook, body: hook.body.replace('owner', 'mallory') }));
  });

  it('retries a webhook answered 500 twice with backoff, and sends it once when it is answered 200', async () => {
    receiver.hooks.length = 0;
    receiver.statuses = [500, 500];
    const mailsBefore = mail.mails.length;
    await owner.testNotification();
    await dispatch();
    assert.equal(receiver.hooks.length, 1);
    const [failed] = await owner.notificationMessages({ status: 'temporary_failure' });
    assert.equal(failed?.method, 'webhook');
    assert.equal(failed?.status_reason, 'webhook: the endpoint answered 500');
    assert.equal(failed?.next_retry_after, new Date(test.clock.now().getTime() + 60_000).toISOString());
    await dispatch();
    assert.equal(receiver.hooks.length, 1, 'not before the retry time');
    test.clock.advance(60_000);
    await dispatch();
    assert.equal(receiver.hooks.length, 2);
    // The second retry waits twice as long.
    test.clock.advance(60_000);
    await dispatch();
    assert.equal(receiver.hooks.length, 2);
    test.clock.advance(60_000);
    await dispatch();
    assert.equal(receiver.hooks.length, 3);
    await dispatch();
    test.clock.advance(10 * 60_000);
    await dispatch();
    assert.equal(receiver.hooks.length, 3, 'sent once: never again after the 200');
    assert.equal(new Set(receiver.hooks.map((hook) => hook.headers['x-cove-notification-id'])).size, 1);
    const retried = receiver.hooks[0]?.headers['x-cove-notification-id'];
    const message = (await owner.notificationMessages({ limit: 20 })).find((m) => m.id === retried);
    assert.equal(message?.status, 'sent');
    assert.equal(message?.attempt_count, 3);
    assert.equal(mail.mails.length, mailsBefore + 1, 'the mail went once, at the first try');
  });

  it('keeps a webhook answered 400 as a permanent failure, listed by cove notifications list', async () => {
    receiver.hooks.length = 0;
    receiver.statuses = [400];
    await owner.testNotification();
    await dispatch();
    test.clock.advance(60 * 60_000);
    await dispatch();
    assert.equal(receiver.hooks.length, 1, 'never tried again');
    const cli = new CliUser({ COVE_URL: test.url, COVE_SESSION_TOKEN: owner.token ?? '', COVE_SECRET_STORE: 'file' });
    const json = await cli.run('notifications', 'list', '--status', 'permanent_failure', '-o', 'json');
    assert.equal(json.code, 0, json.stderr);
    const listed = JSON.parse(json.stdout) as { method: string; status_reason: string; attempt_count: number; username: string }[];
    assert.equal(listed.length, 1);
    assert.deepEqual(
      { method: listed[0]?.method, reason: listed[0]?.status_reason, attempts: listed[0]?.attempt_count, user: listed[0]?.username },
      { method: 'webhook', reason: 'webhook: the endpoint answered 400', attempts: 1, user: 'owner' },
    );
    const table = await cli.run('notifications', 'list', '-c', 'kind,method,status,reason');
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /Test Notification\s+webhook\s+permanent_failure\s+webhook: the endpoint answered 400/);
  });

  it('pauses, resumes and tests from the command line', async () => {
    const cli = new CliUser({ COVE_URL: test.url, COVE_SESSION_TOKEN: owner.token ?? '', COVE_SECRET_STORE: 'file' });
    const paused = await cli.run('notifications', 'pause');
    assert.equal(paused.code, 0, paused.stderr);
    assert.match(paused.stdout, /paused/);
    assert.deepEqual(await owner.notificationsSettings(), { notifier_paused: true });
    const tested = await cli.run('notifications', 'test', '-o', 'json');
    assert.equal(tested.code, 0, tested.stderr);
    assert.deepEqual(JSON.parse(tested.stdout), { sent: true });
    assert.equal((await owner.notificationMessages({ status: 'pending' })).length, 2, 'by e-mail and by webhook, held while paused');
    const resumed = await cli.run('notifications', 'resume', '-o', 'json');
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(JSON.parse(resumed.stdout), { notifier_paused: false });
    await dispatch();
    assert.equal((await owner.notificationMessages({ status: 'pending' })).length, 0);
  });
});

describe('events mailed to the workspace owner through a real SMTP server', () => {
  const HOUR = 3_600_000;
  const mail = new MailServer();
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;

  /** The first mail whose subject matches, once it has arrived. */
  const mailed = (subject: RegExp) =>
    eventually(async () => {
      await test.daemon.tasks.notifications.runNow();
      const found = mail.mails.find((sent) => subject.test(sent.subject ?? ''));
      assert.ok(found, `no mail "${subject.source}" yet`);
      return found;
    });

  before(async () => {
    const smtp = await mail.listen();
    test = await startTestDaemon({ flags: { emailSmtpHost: smtp, emailSmtpFrom: 'cove@example.com', provisionerDaemons: '1' } });
    owner = await createOwner(test);
    member = await createMember(test, 'member');
  });
  after(async () => {
    await test.close();
    await mail.close();
  });

  it('mails the autostop warning with the link that extends it, and a failed build with its error and link', async () => {
    const { template: timed } = await createEchoTemplate(owner, 'timed', {});
    const workspace = await member.createWorkspace('me', { name: 'timed', template_id: timed.id, ttl_ms: 2 * HOUR });
    await member.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    test.clock.advance(1.5 * HOUR);
    await test.daemon.tasks.autostopWarning.runNow();
    const warning = await mailed(/"timed" will stop at/);
    assert.deepEqual(warning.envelopeTo, ['member@example.com']);
    const extend = `${test.url}/@member/timed?extend=1h`;
    assert.ok(warning.text?.includes(extend), warning.text);
    assert.ok(String(warning.html).includes(`href="${extend}"`), String(warning.html));

    const { template: broken } = await createEchoTemplate(owner, 'broken', { apply: { start: { error: 'no capacity left' } } });
    const failing = await member.createWorkspace('me', { name: 'broken', template_id: broken.id });
    await member.followWorkspaceBuildLogs(failing.latest_build.id, () => undefined);
    const failed = await mailed(/"broken" start failed/);
    assert.deepEqual(failed.envelopeTo, ['member@example.com']);
    assert.match(failed.text ?? '', /no capacity left/);
    assert.ok(failed.text?.includes(`${test.url}/@member/broken`), failed.text);
    // The owner of the deployment is told of neither: they are the member's.
    assert.ok(mail.mails.every((sent) => sent.envelopeTo.includes('member@example.com')));
  });
});

describe('a message queued when the daemon is killed is sent once after the restart', () => {
  const mail = new MailServer();
  let database: TestDatabase;
  let server: ChildProcess | undefined;
  let smtp: string;

  async function serve(): Promise<string> {
    const args = ['serve', '--http-address', '127.0.0.1:0', '--data-dir', database.dataDir, '--provisioner-daemons', '0'];
    args.push('--email-smtp-host', smtp, '--email-smtp-from', 'cove@example.com', '--notifications-fetch-interval', '200ms');
    args.push('--notifications-inbox-enabled=false');
    if (database.target.kind === 'postgres') args.push('--postgres-url', database.target.url);
    server = spawn(COVE, args, { env: { ...process.env, COVE_SECRET_STORE: 'file' }, stdio: ['ignore', 'ignore', 'pipe'] });
    return waitFor(server, 'stderr', /cove is listening url=(\S+)/, 'cove serve');
  }

  before(async () => {
    smtp = await mail.listen();
    // Migrated already, as the daemon tests' databases: the start being waited for is the daemon's, not the schema's.
    database = await createTestDatabase(TEST_DIALECTS[0] ?? 'sqlite', { migrated: true });
  });
  after(async () => {
    await stop(server);
    await database.drop();
    await mail.close();
  });

  it('kill -9 while sending is paused, restarted unpaused: the mail arrives exactly once', async () => {
    const anonymous = new CoveClient({ url: await serve() });
    await anonymous.createFirstUser({ email: 'admin@example.com', username: 'admin', password: STRONG_PASSWORD });
    const { session_token: token } = await anonymous.login('admin@example.com', STRONG_PASSWORD);
    let admin = anonymous.withToken(token);
    await admin.updateNotificationsSettings({ notifier_paused: true });
    await admin.testNotification();
    assert.equal((await admin.notificationMessages({ status: 'pending' })).length, 1);

    const killed = server;
    killed?.kill('SIGKILL');
    await new Promise((exited) => killed?.once('exit', exited));
    admin = new CoveClient({ url: await serve(), token });
    assert.equal((await admin.notificationMessages({ status: 'pending' })).length, 1, 'the queue survived');
    await admin.updateNotificationsSettings({ notifier_paused: false });
    await eventually(() => assert.equal(mail.mails.length, 1), 10_000, 100);
    await eventually(async () => assert.equal((await admin.notificationMessages({ status: 'sent' })).length, 1), 5000, 100);
    await new Promise((settle) => setTimeout(settle, 600));
    assert.equal(mail.mails.length, 1, 'exactly once');
    assert.deepEqual(mail.mails[0]?.envelopeTo, ['admin@example.com']);
  });
});

describe('two replicas on PostgreSQL share one queue', { skip: NEEDS_POSTGRES }, () => {
  const mail = new MailServer();
  let first: TestDaemon;
  let second: Daemon;
  let secondDir: string;

  before(async () => {
    const smtp = await mail.listen();
    const flags = {
      emailSmtpHost: smtp,
      emailSmtpFrom: 'cove@example.com',
      notificationsInboxEnabled: 'false',
      notificationsLeaseCount: '3',
    };
    first = await startTestDaemon({ database: 'postgres', flags });
    const target = first.database.target;
    assert.equal(target.kind, 'postgres');
    secondDir = mkdtempSync(join(tmpdir(), 'cove-notify-replica-'));
    second = await startDaemon(
      resolveOptions({
        flags: { httpAddress: '127.0.0.1:0', dataDir: secondDir, provisionerDaemons: '0', postgresUrl: target.url, ...flags },
        env: {},
      }),
      { logger: silentLogger(), clock: new ManualClock(first.clock.now()) },
    );
  });
  after(async () => {
    await second?.close();
    await first?.close();
    rmSync(secondDir, { recursive: true, force: true });
    await mail.close();
  });

  it('sends each of 20 messages exactly once while both replicas send at the same time', async () => {
    const owner = await createOwner(first);
    const ownerId = (await owner.user('me')).id;
    await owner.updateNotificationsSettings({ notifier_paused: true });
    for (let i = 0; i < 20; i++) {
      await first.daemon.notifications.enqueue({
        kind: 'templateDeleted',
        userId: ownerId,
        labels: { template: `template-${i}`, initiator: 'owner' },
        targets: [],
        createdBy: 'test',
      });
    }
    await owner.updateNotificationsSettings({ notifier_paused: false });
    await Promise.all([
      first.daemon.tasks.notifications.runNow(),
      second.tasks.notifications.runNow(),
      first.daemon.tasks.notifications.runNow(),
      second.tasks.notifications.runNow(),
    ]);
    await eventually(() => assert.equal(mail.mails.length, 20), 10_000, 100);
    await Promise.all([first.daemon.tasks.notifications.runNow(), second.tasks.notifications.runNow()]);
    const subjects = mail.mails.map((m) => m.subject ?? '').sort();
    assert.equal(new Set(subjects).size, 20, 'no message twice');
    assert.equal(subjects.length, 20);
    const messages = await owner.notificationMessages({ limit: 100 });
    assert.equal(messages.filter((m) => m.status === 'sent' && m.attempt_count === 1).length, 20);
  });
});
