import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { CoveClient } from '../../src/sdk/client.js';
import { stop, waitFor } from '../helpers/child-process.js';
import { createTestDatabase, RUN_DATABASE, serveDatabaseArgs, type TestDatabase } from '../helpers/databases.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

/** `cove serve --verbose` started from a shell with the usual umask, its log kept. */
function serve(dataDir: string, database: TestDatabase, verbose = true): { child: ChildProcess; log: () => string } {
  const databaseArgs = serveDatabaseArgs(database)
    .map((arg) => `'${arg}'`)
    .join(' ');
  const child = spawn(
    'sh',
    [
      '-c',
      `umask 022; exec "${COVE}" serve ${verbose ? '--verbose' : ''} --http-address 127.0.0.1:0 --data-dir "${dataDir}" --provisioner-daemons 0 ${databaseArgs}`,
    ],
    { env: { ...process.env, COVE_SECRET_STORE: 'file' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  return { child, log: () => log };
}

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

/** Sends a 3 MB JSON body in pieces, as a client on a real network does, and reads the answer. */
function sendLargeBody(url: string, token: string): Promise<number | string> {
  const size = 3_000_000;
  const body = Buffer.alloc(size, 0x20);
  body.write('{"automatic_updates": "', 0);
  body.write('"}', size - 2);
  return new Promise((resolvePromise) => {
    const req = request(
      `${url}/api/v2/workspaces/5b3d7f4e-0a0e-4b8e-9a57-2f6d5c1e9b11/autoupdates`,
      { method: 'PUT', headers: { 'content-type': 'application/json', 'content-length': size, 'Service-Session-Token': token } },
      (res) => {
        res.resume();
        res.on('end', () => resolvePromise(res.statusCode ?? 0));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolvePromise(error.code ?? error.message));
    req.end(body);
  });
}

describe('a daemon keeps private data private', () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'cove-private-')), 'data');
  let database: TestDatabase;
  let server: { child: ChildProcess; log: () => string };
  let url: string;
  let token: string;

  before(async () => {
    database = await createTestDatabase(RUN_DATABASE);
    server = serve(dataDir, database);
    url = await waitFor(server.child, 'stderr', /cove is listening url=(\S+)/, 'cove serve');
    const anonymous = new CoveClient({ url });
    await anonymous.createFirstUser({ email: 'owner@example.com', username: 'owner', password: STRONG_PASSWORD });
    token = (await anonymous.login('owner@example.com', STRONG_PASSWORD)).session_token;
  });
  after(async () => {
    await stop(server.child);
    await database.drop();
    rmSync(dirname(dataDir), { recursive: true, force: true });
  });

  it('creates the data directory 0700 under umask 022', () => {
    assert.equal(mode(dataDir), '700');
  });

  it(
    'creates the database files 0600 under umask 022 (SQLite only)',
    { skip: RUN_DATABASE !== 'sqlite' && 'no database file on PostgreSQL' },
    () => {
      for (const name of ['cove.db', 'cove.db-wal', 'cove.db-shm']) assert.equal(mode(join(dataDir, name)), '600', name);
    },
  );

  it('logs no token, however the client passed it', async () => {
    const secret = token.split('-')[1] ?? token;
    await fetch(`${url}/api/v2/users/me`, { headers: { 'Service-Session-Token': token } });
    await fetch(`${url}/api/v2/users/me`, { headers: { cookie: `service_session_token=${token}` } });
    await fetch(`${url}/api/v2/users/me?service_session_token=${token}`);
    await fetch(`${url}/api/v2/users/me?service_session_token=${encodeURIComponent(token)}&x=1`);
    await new Promise<void>((resolvePromise) => {
      const socket = new WebSocket(`${url.replace('http', 'ws')}/api/v2/deployment/stats?service_session_token=${token}`);
      socket.once('error', () => resolvePromise());
      socket.once('close', () => resolvePromise());
      socket.once('open', () => socket.close());
    });
    await fetch(`${url}/api/v2/users/me`, { headers: { authorization: `Bearer ${token}` } });
    // The verbose log did record these requests, just not the token.
    assert.match(server.log(), /users\/me\?service_session_token=\[redacted\]/);
    const leaks = server
      .log()
      .split('\n')
      .filter((line) => line.includes(secret));
    assert.deepEqual(leaks, [], 'the session secret appears in the log');
  });

  it('logs no database password (PostgreSQL only)', { skip: RUN_DATABASE !== 'postgres' && 'SQLite has no password' }, () => {
    const { password } = new URL(database.target.kind === 'postgres' ? database.target.url : '');
    assert.ok(password);
    assert.ok(!server.log().includes(`:${password}@`), 'the PostgreSQL URL with its password appears in the log');
  });

  it('tightens files an earlier daemon left readable by others, and says so', async () => {
    await stop(server.child);
    chmodSync(dataDir, 0o755);
    if (RUN_DATABASE === 'sqlite') chmodSync(join(dataDir, 'cove.db'), 0o644);
    server = serve(dataDir, database);
    url = await waitFor(server.child, 'stderr', /cove is listening url=(\S+)/, 'cove serve');
    assert.equal(mode(dataDir), '700');
    if (RUN_DATABASE === 'sqlite') assert.equal(mode(join(dataDir, 'cove.db')), '600');
    assert.match(server.log(), /made files of the data directory private/);
  });
});

describe('an oversized body', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cove-oversized-'));
  let database: TestDatabase;
  let server: { child: ChildProcess; log: () => string };
  let url: string;
  let token: string;

  before(async () => {
    database = await createTestDatabase(RUN_DATABASE);
    // Not verbose: a daemon that answers quickly is the one whose early close the client trips on.
    server = serve(dataDir, database, false);
    url = await waitFor(server.child, 'stderr', /cove is listening url=(\S+)/, 'cove serve');
    const anonymous = new CoveClient({ url });
    await anonymous.createFirstUser({ email: 'owner@example.com', username: 'owner', password: STRONG_PASSWORD });
    token = (await anonymous.login('owner@example.com', STRONG_PASSWORD)).session_token;
  });
  after(async () => {
    await stop(server.child);
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers an oversized body with 413, never a reset connection', async () => {
    for (let attempt = 0; attempt < 30; attempt++) assert.equal(await sendLargeBody(url, token), 413, `attempt ${attempt}`);
  });
});
