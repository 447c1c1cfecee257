// Run by warmFastPartCache (scripts/fast-part.mjs) in a Node of its own: runs a fast part's plain
// commands against a closed port, then writes V8's code cache of the part, which then holds the
// functions those runs compiled.
//
//   node scripts/warm-fast-part.cjs PART_FILE CACHE_FILE FILENAME REQUIRE_FROM COMMANDS_JSON
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const { constants, Script } = require('node:vm');

const [partFile, cacheFile, filename, requireFrom, commands] = process.argv.slice(2);
const script = new Script(readFileSync(partFile, 'utf8'), { filename, importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
const module_ = { exports: {} };
script.runInThisContext()(module_.exports, createRequire(requireFrom), module_, requireFrom, dirname(requireFrom));

(async () => {
  for (const command of JSON.parse(commands)) {
    const argv = [process.execPath, 'cove', ...command, '--url', 'http://127.0.0.1:1', '--token', 'x'];
    const ran = await module_.exports.runFast(argv, async () => undefined);
    if (ran !== 'fast') throw new Error(`${command.join(' ')} is not in the fast part`);
  }
  // After the runs have ended, so that the cache holds everything they compiled.
  process.once('beforeExit', () => writeFileSync(cacheFile, script.createCachedData()));
})();
