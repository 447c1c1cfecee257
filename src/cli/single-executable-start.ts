// The single executable's main script (scripts/package.mjs): a plain command runs from the fast
// part; any other, and the keychain child the executable starts for itself, from the full CLI.
// Both are assets with V8's code cache (src/cli/single-executable-modules.ts); this script holds
// only the choice, so that what Node compiles at every start without a cache of its own is small.
import { KEYCHAIN_CHILD_ENV } from './keyring-binding.js';
import { FAST_PART, MAIN_PART, runPart } from './single-executable-modules.js';

/** What the fast part exports (src/cli/fast-entry.ts). */
interface FastPart {
  runFast(argv: readonly string[], full: () => Promise<unknown>): Promise<'fast' | 'full'>;
}

/** The full CLI runs the command line as its main part loads. */
const full = async (): Promise<void> => {
  runPart(MAIN_PART);
};

if (process.env[KEYCHAIN_CHILD_ENV] === '1') {
  void full();
} else {
  (runPart(FAST_PART) as FastPart).runFast(process.argv, full).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
