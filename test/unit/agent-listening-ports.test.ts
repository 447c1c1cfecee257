import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createListeningPortsReader, parseTcpTable } from '../../src/agent/listening-ports.js';
import { ManualClock } from '../../src/lib/clock.js';

const linux = process.platform === 'linux';

const TCP_HEADER = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
const TCP6_HEADER =
  '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';

function tcpLine(sl: number, local: string, state: string, inode: number): string {
  return `   ${sl}: ${local} 00000000:0000 ${state} 00000000:00000000 00:00000000 00000000  1000        0 ${inode} 1 0000000000000000 100 0 0 10 0\n`;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

describe('listening ports', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  /** A fake procfs: the tables, and processes with socket fds and a comm. */
  function fakeProc(tcp: string, tcp6: string | undefined, processes: Record<string, { comm?: string; sockets: number[] }>): string {
    const root = mkdtempSync(join(tmpdir(), 'cove-proc-'));
    dirs.push(root);
    mkdirSync(join(root, 'net'));
    writeFileSync(join(root, 'net/tcp'), tcp);
    if (tcp6 !== undefined) writeFileSync(join(root, 'net/tcp6'), tcp6);
    for (const [pid, proc] of Object.entries(processes)) {
      mkdirSync(join(root, pid, 'fd'), { recursive: true });
      if (proc.comm !== undefined) writeFileSync(join(root, pid, 'comm'), `${proc.comm}\n`);
      proc.sockets.forEach((inode, fd) => symlinkSync(`socket:[${inode}]`, join(root, pid, 'fd', String(fd + 3))));
      symlinkSync('/dev/null', join(root, pid, 'fd', '0'));
    }
    return root;
  }

  it('parses IPv4 and IPv6 tables and keeps only LISTEN sockets', () => {
    const sockets = parseTcpTable(
      TCP_HEADER + tcpLine(0, '0100007F:1F90', '0A', 111) + tcpLine(1, '0100007F:1F91', '01', 112) + tcpLine(2, '00000000:0016', '0a', 113),
    );
    assert.deepEqual(sockets, [
      { port: 0x1f90, inode: '111' },
      { port: 22, inode: '113' },
    ]);
    assert.deepEqual(parseTcpTable(TCP6_HEADER + tcpLine(0, '00000000000000000000000001000000:0BB8', '0A', 7)), [
      { port: 3000, inode: '7' },
    ]);
    assert.deepEqual(parseTcpTable(''), []);
  });

  it('reads a fake procfs: names owners, drops low, excluded and non-listening ports, merges duplicates', async () => {
    const tcp =
      TCP_HEADER +
      tcpLine(0, '0100007F:1F90', '0A', 101) + // 8080 listen, owned by "web"
      tcpLine(1, '00000000:0008', '0A', 102) + // 8: below the minimum
      tcpLine(2, '0100007F:0BB8', '01', 103) + // 3000 established: ignored
      tcpLine(3, '00000000:1770', '0A', 104) + // 6000 listen, owner unknown
      tcpLine(4, '0100007F:17C4', '0A', 105) + // 6084
      tcpLine(5, '0100007F:0840', '0A', 106) + // 2112: the agent's own
      tcpLine(6, '00000000:0009', '0A', 107); // 9: the minimum itself
    const tcp6 =
      TCP6_HEADER +
      tcpLine(0, '00000000000000000000000000000000:1F90', '0A', 201) + // 8080 again, over IPv6
      tcpLine(1, '00000000000000000000000001000000:13880', '0A', 202) + // not a port
      tcpLine(2, '00000000000000000000000001000000:2328', '0A', 203) + // 9000 listen over IPv6
      tcpLine(3, '00000000000000000000000001000000:2329', '06', 204); // 9001 TIME_WAIT
    const root = fakeProc(tcp, tcp6, {
      '10': { comm: 'web', sockets: [101, 201] },
      '11': { comm: 'ruby', sockets: [105] },
      '12': { comm: 'java', sockets: [203] },
      '13': { sockets: [107] }, // a process whose comm vanished
    });
    const ports = await createListeningPortsReader({ procRoot: root }).read();
    assert.deepEqual(ports, [
      { process_name: '', network: 'tcp', port: 9 },
      { process_name: '', network: 'tcp', port: 6000 },
      { process_name: 'ruby', network: 'tcp', port: 6084 },
      { process_name: 'web', network: 'tcp', port: 8080 },
      { process_name: 'java', network: 'tcp', port: 9000 },
    ]);

    const custom = await createListeningPortsReader({ procRoot: root, excludePorts: [8080] }).read();
    assert.deepEqual(
      custom.map((port) => port.port),
      [9, 2112, 6000, 6084, 9000],
    );
  });

  it('tolerates a missing tcp6 table and a missing process directory', async () => {
    const root = fakeProc(TCP_HEADER + tcpLine(0, '0100007F:1F90', '0A', 101), undefined, {});
    assert.deepEqual(await createListeningPortsReader({ procRoot: root }).read(), [{ process_name: '', network: 'tcp', port: 8080 }]);
    assert.deepEqual(await createListeningPortsReader({ procRoot: join(root, 'nowhere') }).read(), []);
  });

  it('caches an answer for the cache period', async () => {
    const clock = new ManualClock();
    const root = fakeProc(TCP_HEADER + tcpLine(0, '0100007F:1F90', '0A', 101), undefined, {});
    const reader = createListeningPortsReader({ procRoot: root, clock });
    assert.equal((await reader.read()).length, 1);
    writeFileSync(join(root, 'net/tcp'), TCP_HEADER);
    clock.advance(999);
    assert.equal((await reader.read()).length, 1);
    clock.advance(1);
    assert.equal((await reader.read()).length, 0);
  });

  it('finds a server of this process on the real procfs, then loses it once closed', { skip: !linux }, async () => {
    const clock = new ManualClock();
    const reader = createListeningPortsReader({ clock });
    const server = createServer();
    const port = await listen(server);
    const comm = readFileSync(`/proc/${process.pid}/comm`, 'utf8').trim();
    try {
      const found = (await reader.read()).find((entry) => entry.port === port);
      assert.deepEqual(found, { process_name: comm, network: 'tcp', port });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    assert.ok(
      (await reader.read()).some((entry) => entry.port === port),
      'the cached answer still has it',
    );
    clock.advance(1000);
    assert.equal(
      (await reader.read()).find((entry) => entry.port === port),
      undefined,
    );
  });

  it('answers an empty list where there is no procfs', { skip: linux }, async () => {
    assert.deepEqual(await createListeningPortsReader().read(), []);
  });
});
