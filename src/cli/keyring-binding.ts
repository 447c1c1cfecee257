import { createRequire } from 'node:module';
import { isSea } from 'node:sea';

/** How to start a process that answers one keychain request (see `callKeychain`). */
export interface KeychainChildLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the caller's environment; the keychain itself needs the caller's D-Bus session. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The program a keychain child runs, as CommonJS. It loads the `@napi-rs/keyring` binding from
 * `COVE_KEYRING_BINDING` (its package entry or the `.node` file itself: both export `Entry`) and
 * prints `ready` on a line of its own, so the caller's deadline covers the keychain and not the
 * start of a process on a busy machine; then it reads one JSON request from stdin, performs it
 * and prints one JSON reply. It is a string, not a module, so a child started with `-e` needs no
 * file of ours on disk.
 *
 * On Linux the entry is pinned to the Secret Service: the binding would otherwise fall back to
 * the kernel keyring, whose keys vanish with the login session and which no keychain tool shows.
 */
export const KEYCHAIN_CHILD_SOURCE = `
let binding;
let loadError;
try {
  binding = require(process.env.COVE_KEYRING_BINDING);
} catch (error) {
  loadError = error;
}
process.stdout.write('ready\\n');
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  let reply;
  try {
    if (loadError) throw loadError;
    const request = JSON.parse(input);
    const options = process.platform === 'linux' ? { linux: { store: 'secret-service' } } : undefined;
    const entry = new binding.Entry(request.service, request.account, options);
    if (request.operation === 'get') reply = { value: entry.getPassword() };
    else if (request.operation === 'set') reply = { value: (entry.setPassword(request.secret), null) };
    else if (request.operation === 'delete') reply = { value: entry.deleteCredential() };
    else throw new Error('unknown keychain operation ' + request.operation);
  } catch (error) {
    reply = { error: error instanceof Error ? error.message : String(error) };
  }
  process.stdout.write(JSON.stringify(reply) + '\\n');
});
`;

/** Set in the environment of a keychain child of the single executable: run the child program, not the CLI. */
export const KEYCHAIN_CHILD_ENV = 'COVE_KEYCHAIN_CHILD';

/**
 * The one place that knows where the keyring binding lives and how a child loads it; `undefined`
 * when the binding is not installed. Keychain calls never load the binding into the CLI's own
 * process: a call stuck in D-Bus would hold the process open (Node joins native threads on exit)
 * and a crash in native code would take the command down, so each call runs in a child that is
 * killed at its deadline.
 *
 * With node, the child is `node -e KEYCHAIN_CHILD_SOURCE` and the binding is the installed package
 * (or the file `COVE_KEYRING_BINDING` names).
 * The single executable takes no `-e`: it starts itself with `KEYCHAIN_CHILD_ENV` set, and its
 * entry runs `runKeychainChild` with its loader of embedded addons, which knows the binding by
 * its file name.
 */
export function keychainChildLaunch(env: Readonly<Record<string, string | undefined>>): KeychainChildLaunch | undefined {
  // NODE_OPTIONS is cleared: what the caller preloads (a loader, a debugger) only slows the child.
  if (isSea()) {
    const binding = `keyring.${process.platform}-${process.arch}-gnu.node`;
    return { command: process.execPath, args: [], env: { [KEYCHAIN_CHILD_ENV]: '1', COVE_KEYRING_BINDING: binding, NODE_OPTIONS: '' } };
  }
  // A binding named in the environment wins: for a packager's own build, and for the tests that
  // stand in a binding that crashes or hangs.
  let binding = env['COVE_KEYRING_BINDING'];
  try {
    binding ||= createRequire(import.meta.url).resolve('@napi-rs/keyring');
  } catch {
    return undefined;
  }
  return { command: process.execPath, args: ['-e', KEYCHAIN_CHILD_SOURCE], env: { COVE_KEYRING_BINDING: binding, NODE_OPTIONS: '' } };
}

/**
 * Runs the child program in this process, with `requireBinding` loading what
 * `COVE_KEYRING_BINDING` names; for an executable that cannot be started with `-e`.
 */
export function runKeychainChild(requireBinding: (specifier: string) => unknown): void {
  // The program is kept as source so that `node -e` can run it; here it gets the loader as `require`.
  const program = new Function('require', KEYCHAIN_CHILD_SOURCE) as (require: (specifier: string) => unknown) => void;
  program(requireBinding);
}
