import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SHUTDOWN_LIMIT_MS } from '../../src/daemon/graceful-shutdown.js';
import { OPTION_DEFINITIONS } from '../../src/domain/options/registry.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const UNIT_FILE = join(ROOT, 'packaging', 'cove.service');
const TEXT = readFileSync(UNIT_FILE, 'utf8');

/** The unit's sections, each a map of key to its values (a key may be set several times). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = new Map();
      sections.set(header[1] ?? '', current);
      continue;
    }
    const equals = line.indexOf('=');
    assert.ok(current !== undefined && equals > 0, `a key=value line inside a section: ${line}`);
    const key = line.slice(0, equals);
    current.set(key, [...(current.get(key) ?? []), line.slice(equals + 1)]);
  }
  return sections;
}

const unit = parseUnit(TEXT);
const service = unit.get('Service') ?? new Map<string, string[]>();
const value = (key: string) => {
  const values = service.get(key);
  assert.ok(values !== undefined, `[Service] sets ${key}`);
  return values[values.length - 1];
};

describe('packaging/cove.service', () => {
  it('runs cove serve as its own user with its data in the state directory', () => {
    assert.equal(value('DynamicUser'), 'yes');
    assert.equal(value('StateDirectory'), 'cove');
    assert.equal(value('EnvironmentFile'), '-/etc/cove/cove.env');
    const [executable, command, ...args] = (value('ExecStart') ?? '').split(/\s+/);
    assert.equal(executable, '/usr/local/bin/cove');
    assert.equal(command, 'serve');
    assert.deepEqual(args, ['--data-dir', '/var/lib/cove']);
    // The native addons are unpacked under XDG_CACHE_HOME: it must be the writable cache directory.
    assert.equal(value('CacheDirectory'), 'cove');
    assert.match(value('Environment') ?? '', /(^|\s)XDG_CACHE_HOME=\/var\/cache\/cove(\s|$)/);
  });

  it('passes only flags that cove serve has', () => {
    const flags = new Set(OPTION_DEFINITIONS.map((option) => option.flag));
    const args = (value('ExecStart') ?? '').split(/\s+/).slice(2);
    const named = args.filter((arg) => arg.startsWith('--')).map((arg) => arg.slice(2).split('=')[0] ?? '');
    assert.ok(named.length > 0);
    for (const flag of named) assert.ok(flags.has(flag), `cove serve has --${flag}`);
  });

  it('stops with SIGTERM, waits longer than the daemon drains, restarts on failure and reloads with SIGHUP', () => {
    assert.equal(value('KillSignal'), 'SIGTERM');
    const stopSeconds = Number(value('TimeoutStopSec'));
    assert.ok(stopSeconds * 1000 > SHUTDOWN_LIMIT_MS, `TimeoutStopSec=${stopSeconds} exceeds the ${SHUTDOWN_LIMIT_MS} ms drain`);
    assert.equal(value('Restart'), 'on-failure');
    assert.match(value('ExecReload') ?? '', /^(\/bin\/)?kill -HUP \$MAINPID$/);
    assert.deepEqual(unit.get('Install')?.get('WantedBy'), ['multi-user.target']);
  });

  it('is hardened', () => {
    const expected: Record<string, string> = {
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      NoNewPrivileges: 'yes',
      ProtectKernelTunables: 'yes',
      ProtectKernelModules: 'yes',
      ProtectKernelLogs: 'yes',
      ProtectControlGroups: 'yes',
      LockPersonality: 'yes',
      RestrictAddressFamilies: 'AF_UNIX AF_INET AF_INET6 AF_NETLINK',
      CapabilityBoundingSet: '',
      AmbientCapabilities: '',
    };
    for (const [key, wanted] of Object.entries(expected)) assert.equal(value(key), wanted, key);
    // V8 writes machine code at run time: this option would kill the daemon on start.
    assert.equal(service.has('MemoryDenyWriteExecute'), false);
  });

  it('passes systemd-analyze verify without a warning', (t) => {
    const version = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
    if (version.status !== 0) {
      t.skip('systemd-analyze is not installed');
      return;
    }
    // verify insists that ExecStart's program exists; this machine has no /usr/local/bin/cove.
    const dir = mkdtempSync(join(tmpdir(), 'cove-unit-'));
    try {
      const copy = join(dir, 'cove.service');
      writeFileSync(copy, TEXT.replaceAll('/usr/local/bin/cove', join(ROOT, 'bin', 'cove')));
      const result = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      // An unknown or misspelt key is only a warning for systemd: here it fails.
      assert.equal(result.stderr.trim(), '');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
