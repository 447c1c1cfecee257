import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';

/**
 * The shell users get in terminals: `$SHELL` when the session environment sets it, else the
 * current user's entry in `/etc/passwd`, else `/bin/sh`.
 */
export function loginShell(env: Readonly<Record<string, string | undefined>>): string {
  if (env['SHELL']) return env['SHELL'];
  try {
    const shell = userInfo().shell;
    if (shell) return shell;
  } catch {
    // No passwd entry for this uid (some containers): fall back to reading the file.
  }
  try {
    const uid = process.getuid?.();
    const entry = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .map((line) => line.split(':'))
      .find((fields) => fields[2] === String(uid));
    if (entry?.[6]) return entry[6];
  } catch {
    // Not a Unix system, or no readable passwd file.
  }
  return '/bin/sh';
}
