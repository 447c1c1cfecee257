import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ssh2 from 'ssh2';
import { generateEd25519KeyPair } from '../../src/lib/ssh-key-pair.js';

const SSH_KEYGEN = '/usr/bin/ssh-keygen';
const KEYS = 30_000;
const MAKE_KEYS = `
  import { generateEd25519KeyPair } from ${JSON.stringify(new URL('../../src/lib/ssh-key-pair.ts', import.meta.url).href)};
  let made = 0;
  for (; made < ${KEYS}; made++) generateEd25519KeyPair();
  console.log(made);
`;

describe('ed25519 SSH key pairs', () => {
  it('signs with the private key what the public key verifies', () => {
    for (let round = 0; round < 50; round++) {
      const pair = generateEd25519KeyPair();
      const privateKey = ssh2.utils.parseKey(pair.privateKey);
      const publicKey = ssh2.utils.parseKey(pair.publicKey);
      assert.ok(!(privateKey instanceof Error) && !Array.isArray(privateKey), String(privateKey));
      assert.ok(!(publicKey instanceof Error) && !Array.isArray(publicKey), String(publicKey));
      const data = Buffer.from(`round ${round}`);
      const signature = privateKey.sign(data);
      assert.ok(!(signature instanceof Error));
      assert.equal(publicKey.verify(data, signature), true);
      assert.match(pair.publicKey, /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]{43}\n$/);
    }
  });

  it(
    'writes private keys OpenSSH reads and derives the same public key from',
    { skip: !existsSync(SSH_KEYGEN) && `no ${SSH_KEYGEN}` },
    () => {
      const directory = mkdtempSync(join(tmpdir(), 'cove-key-'));
      try {
        for (let round = 0; round < 5; round++) {
          const pair = generateEd25519KeyPair();
          const file = join(directory, `key-${round}`);
          writeFileSync(file, pair.privateKey, { mode: 0o600 });
          assert.equal(execFileSync(SSH_KEYGEN, ['-y', '-f', file]).toString().trim(), pair.publicKey.trim());
        }
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  );

  it('makes many keys in a row without stalling', async () => {
    // On Node 20, exporting each fresh key as a JWK deadlocked about once in a hundred thousand keys,
    // and the agent's SSH server test hung on it in CI. A deadlock stops the whole thread, so the keys
    // are made in a child process that a deadline can kill, and the test fails instead of hanging.
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', MAKE_KEYS], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (data: Buffer) => (output += data.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    clearTimeout(timer);
    assert.equal(signal, null, `making ${KEYS} keys stalled for 60 s`);
    assert.equal(code, 0);
    assert.equal(output.trim(), String(KEYS));
  });
});
