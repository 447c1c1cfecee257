import { realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository's own directory, also when the tests run from the compiled mirror
 * (scripts/test-tree.mjs), whose top-level entries link to the repository's: the mirror serves
 * reading files, but git must be asked in the real checkout.
 */
export const REPOSITORY_ROOT = dirname(realpathSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../package.json')));

/** `bin/cove`, as a user runs it (beside the compiled tests, in the mirror, a link to the repository's). */
export const COVE_BIN = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');
