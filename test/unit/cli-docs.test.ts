import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { CLI_REFERENCE_PATH, renderCliReference } from '../../scripts/cli-docs.js';
import { COMMANDS } from '../../src/cli/command-table.js';

const committed = await readFile(new URL(`../../${CLI_REFERENCE_PATH}`, import.meta.url), 'utf8');

describe('docs/cli.md', () => {
  it('is what the command table and the command specs generate now', async () => {
    const fresh = await renderCliReference();
    if (fresh !== committed) {
      const freshLines = fresh.split('\n');
      const committedLines = committed.split('\n');
      const at = freshLines.findIndex((line, index) => line !== committedLines[index]);
      assert.fail(
        `docs/cli.md is out of date: run \`npm run docs:cli\` and commit the result.\n` +
          `First difference at line ${at + 1}:\n  committed: ${committedLines[at] ?? '(end of file)'}\n  generated: ${freshLines[at] ?? '(end of file)'}`,
      );
    }
  });

  it('has a section for every top-level command, with its subcommands and options', async () => {
    for (const entry of COMMANDS) assert.match(committed, new RegExp(`^### cove ${entry.name}$`, 'm'), entry.name);
    const templates = await COMMANDS.find((entry) => entry.name === 'templates')?.load();
    for (const sub of templates?.subcommands ?? []) assert.match(committed, new RegExp(`^#### cove templates ${sub.name}$`, 'm'), sub.name);
    // Options declared through configure (repeatable ones, the daemon's settings) are there too.
    assert.match(committed, /`--variable <name=value>`/);
    assert.match(committed, /`--http-address <value>`/);
  });

  it('documents the aliases the CLI answers to: those of the table and of the spec agree', async () => {
    // `cove --help` lists the table's aliases, but a command runs under the aliases of its spec.
    for (const entry of COMMANDS) {
      const spec = await entry.load();
      assert.deepEqual([...(spec.aliases ?? [])], [...(entry.aliases ?? [])], `aliases of ${entry.name}`);
    }
  });

  it('names no path of the machine it was generated on', () => {
    assert.doesNotMatch(committed, new RegExp(process.cwd().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  });
});
