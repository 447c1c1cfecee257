import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CliUser } from '../helpers/run-cli.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const OTHER_VERSION = '99.0.0';

/**
 * A daemon of another version: the real daemon behind a proxy that changes only the version it
 * reports, as a deployment upgraded before its users' CLIs would.
 */
function otherVersionProxy(target: string): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => name !== 'host' && name !== 'connection'),
      ) as Record<string, string>;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      void fetch(`${target}${request.url ?? '/'}`, { method: request.method ?? 'GET', headers, ...(body ? { body } : {}) }).then(
        async (answer) => {
          const payload = Buffer.from(await answer.arrayBuffer());
          response.writeHead(answer.status, {
            'content-type': answer.headers.get('content-type') ?? 'application/json',
            'x-cove-build-version': OTHER_VERSION,
          });
          response.end(payload);
        },
        (error: unknown) => {
          response.writeHead(502);
          response.end(String(error));
        },
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

describe('the CLI warns once a day when the daemon runs another version', () => {
  let test: TestDaemon;
  let proxy: { server: Server; url: string };
  let token: string;

  before(async () => {
    test = await startTestDaemon();
    const owner = await createOwner(test);
    token = owner.token ?? '';
    proxy = await otherVersionProxy(test.url);
  });
  after(async () => {
    await new Promise((resolve) => proxy.server.close(resolve));
    await test.close();
  });

  it('says nothing when the versions match', async () => {
    const user = new CliUser();
    const result = await user.run('--url', test.url, '--token', token, 'whoami');
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
  });

  it('warns on stderr with where to download the daemon’s build, then not again that day', async () => {
    const user = new CliUser();
    const same = await user.run('--url', test.url, '--token', token, 'whoami');
    const first = await user.run('--url', proxy.url, '--token', token, 'whoami');
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, same.stdout.replace(test.url, proxy.url), 'the warning stays off stdout');
    const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
    assert.match(first.stderr, new RegExp(`deployment runs ${OTHER_VERSION.replaceAll('.', '\\.')}`));
    assert.ok(first.stderr.includes(`${proxy.url}/bin/cove-linux-${arch}`), first.stderr);
    assert.equal(first.stderr.split('warning:').length, 2, 'one warning per command');

    const second = await user.run('--url', proxy.url, '--token', token, 'whoami');
    assert.equal(second.stderr, '');

    const state = join(user.configDir, 'version-warning.json');
    const recorded = JSON.parse(readFileSync(state, 'utf8')) as { last_warning_at: string };
    writeFileSync(state, JSON.stringify({ last_warning_at: new Date(Date.parse(recorded.last_warning_at) - 25 * 3600_000).toISOString() }));
    const nextDay = await user.run('--url', proxy.url, '--token', token, 'whoami');
    assert.match(nextDay.stderr, /^warning: /);
  });
});
