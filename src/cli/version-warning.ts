import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION } from '../lib/version.js';
import type { CliIo } from './io.js';

/** A mismatch is worth one line a day, not one per command. */
const WARNING_INTERVAL_MS = 24 * 60 * 60_000;
const STATE_FILE = 'version-warning.json';

/**
 * What the CLI calls with the version a daemon reports on each answer (`x-cove-build-version`):
 * when it differs from this build, says so on stderr, at most once a day (the time of the last
 * warning is kept in the CLI's config directory), with where to fetch the daemon's own build.
 * Nothing is written when the versions match, so output and scripts stay as they were.
 */
export function versionWarning(
  configDir: string,
  io: CliIo,
  deploymentUrl: string,
  now: () => number = Date.now,
): (version: string) => void {
  let checked = false;
  return (serverVersion) => {
    if (checked || serverVersion === '' || serverVersion === VERSION) return;
    checked = true;
    const file = join(configDir, STATE_FILE);
    if (now() - lastWarning(file) < WARNING_INTERVAL_MS) return;
    const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
    io.stderr.write(
      `warning: this cove is version ${VERSION} but the deployment runs ${serverVersion}.\n` +
        `hint: download the deployment's cove with "curl -fsSL -o cove ${deploymentUrl.replace(/\/+$/, '')}/bin/cove-linux-${arch} && chmod +x cove".\n`,
    );
    try {
      mkdirSync(configDir, { recursive: true, mode: 0o700 });
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, `${JSON.stringify({ last_warning_at: new Date(now()).toISOString() })}\n`, { mode: 0o600 });
      renameSync(temporary, file);
    } catch {
      // An unwritable config directory means the warning comes again; the command still runs.
    }
  };
}

function lastWarning(file: string): number {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { last_warning_at?: unknown };
    const at = typeof parsed.last_warning_at === 'string' ? Date.parse(parsed.last_warning_at) : Number.NaN;
    return Number.isNaN(at) ? 0 : at;
  } catch {
    return 0;
  }
}
