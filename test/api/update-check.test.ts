import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import packageJson from '../../package.json' with { type: 'json' };
import { compareVersions } from '../../src/domain/update-check.js';
import { capturingLogger, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** A release feed on the loopback interface; the test decides what it serves. */
async function startFeed(): Promise<{
  url: string;
  serve: (body: unknown, status?: number) => void;
  requests: () => number;
  close: () => Promise<void>;
}> {
  let answer: { body: unknown; status: number } = { body: {}, status: 200 };
  let requests = 0;
  const server: Server = createServer((_req, res) => {
    requests++;
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/releases/latest.json`,
    serve: (body, status = 200) => {
      answer = { body, status };
    },
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('update check', () => {
  let feed: Awaited<ReturnType<typeof startFeed>>;
  let test: TestDaemon;
  const log = capturingLogger();
  before(async () => {
    feed = await startFeed();
    feed.serve({ version: packageJson.version, url: 'https://releases.example.com/cove/current' });
    test = await startTestDaemon({ flags: { updateCheck: 'true', updateCheckUrl: feed.url }, logger: log.logger });
  });
  after(async () => {
    await test.close();
    await feed.close();
  });

  it('asks the feed at start and answers from the last result', async () => {
    await test.daemon.tasks.updateCheck.runNow();
    assert.ok(feed.requests() >= 1);
    assert.deepEqual(await test.anonymous.updateCheck(), { current: true, version: packageJson.version, url: '' });
  });

  it('says a newer version exists once the feed serves one, and logs it once', async () => {
    feed.serve({ version: '99.1.0', url: 'https://releases.example.com/cove/99.1.0' });
    await test.daemon.tasks.updateCheck.runNow();
    assert.deepEqual(await test.anonymous.updateCheck(), {
      current: false,
      version: '99.1.0',
      url: 'https://releases.example.com/cove/99.1.0',
    });
    await test.daemon.tasks.updateCheck.runNow();
    const lines = log.lines().filter((line) => line.includes('a newer version of cove is available'));
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0] ?? '', /99\.1\.0/);
  });

  it('keeps the last answer when the feed fails', async () => {
    feed.serve({ message: 'unavailable' }, 503);
    await test.daemon.tasks.updateCheck.runNow();
    assert.equal((await test.anonymous.updateCheck()).version, '99.1.0');
    feed.serve({ version: packageJson.version, url: '' });
    await test.daemon.tasks.updateCheck.runNow();
    assert.deepEqual(await test.anonymous.updateCheck(), { current: true, version: packageJson.version, url: '' });
  });

  it('orders versions as releases do', () => {
    assert.equal(compareVersions('1.10.0', '1.9.9'), 1);
    assert.equal(compareVersions('v2.0.0', '2.0.0'), 0);
    assert.equal(compareVersions('2.0.0-rc.1', '2.0.0'), -1);
    assert.equal(compareVersions('0.1.0', '0.2.0'), -1);
  });

  it('refuses --update-check without a feed to ask', async () => {
    await assert.rejects(startTestDaemon({ flags: { updateCheck: 'true' } }), /--update-check-url/);
  });
});
