import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { OPTION_DEFINITIONS, type DeploymentValues } from '../../src/domain/deployment-options.js';

/**
 * Every option promises something in `--help` and `/deployment/config`; an option that no code
 * reads promises what the code does not do. This fails when an option declared in
 * src/domain/deployment-options.ts is read nowhere else in src: its key is neither accessed as a
 * property (`values.oidcScopes`, `settings.oidcScopes`) nor destructured (`const { postgresUrl } = …`).
 */

/** Options read elsewhere than through their key, each with why. */
const ALLOWED_UNREAD: Readonly<Partial<Record<keyof DeploymentValues, string>>> = {
  configFile: 'read by `cove serve` from the raw flags before the other options are resolved: it names the YAML file they come from',
  tlsClientCertFile:
    "hidden, accepted from the reference's configuration and shown in the deployment config's tls object; the daemon's own outgoing requests present no client certificate",
  tlsClientKeyFile: 'hidden, the key of --tls-client-cert-file: accepted and shown in the deployment config, not used by the daemon',
};

const SOURCE_ROOT = join(import.meta.dirname, '..', '..', 'src');
const DECLARATIONS = join(SOURCE_ROOT, 'domain', 'deployment-options.ts');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && path !== DECLARATIONS ? [path] : [];
  });
}

/** Where the key is read: a property access or a destructuring, outside the declarations. */
export function readersOf(key: string, sources: ReadonlyMap<string, string>): string[] {
  const access = new RegExp(`\\.${key}\\b`);
  const destructuring = new RegExp(`\\{[^}]*\\b${key}\\b[^}]*\\}\\s*=`);
  return [...sources].filter(([, text]) => access.test(text) || destructuring.test(text)).map(([path]) => relative(SOURCE_ROOT, path));
}

describe('deployment options', () => {
  const sources = new Map(sourceFiles(SOURCE_ROOT).map((path) => [path, readFileSync(path, 'utf8')]));

  it('finds a reader where there is one and none where there is none', () => {
    assert.ok(readersOf('sessionDurationMs', sources).length > 0);
    assert.deepEqual(readersOf('anOptionNobodyDeclared', sources), []);
    const sample = new Map([['x.ts', 'const { postgresUrl, dataDir } = options.values;']]);
    assert.equal(readersOf('postgresUrl', sample).length, 1);
  });

  it('reads every declared option somewhere in src', () => {
    const unread = OPTION_DEFINITIONS.filter(
      (option) => !(option.key in ALLOWED_UNREAD) && readersOf(option.key, sources).length === 0,
    ).map((option) => `--${option.flag} (${option.key})`);
    assert.deepEqual(unread, [], `options that nothing reads:\n${unread.join('\n')}`);
  });

  it('allow-lists only declared options, each with a reason', () => {
    const declared = new Set<string>(OPTION_DEFINITIONS.map((option) => option.key));
    for (const [key, reason] of Object.entries(ALLOWED_UNREAD)) {
      assert.ok(declared.has(key), `${key} is allow-listed but not declared`);
      assert.ok(reason.length > 20, `${key} needs a reason`);
    }
  });
});
