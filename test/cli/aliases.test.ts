import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CliUser } from '../helpers/run-cli.js';

/** The reference CLI's aliases (its commands' `Aliases:`), each with the command it stands for. */
const ALIASES: readonly (readonly [readonly string[], string])[] = [
  [['org', 'ls'], 'organizations list'],
  [['organization', 'show'], 'organizations show'],
  [['orgs', 'rm'], 'organizations delete'],
  [['user', 'ls'], 'users list'],
  [['token', 'ls'], 'tokens list'],
  [['token', 'rm'], 'tokens remove'],
  [['template', 'ls'], 'templates list'],
  [['template', 'rm'], 'templates delete'],
  [['ls'], 'list'],
  [['rm'], 'delete'],
];

describe('aliases: the reference CLI names run the same commands', () => {
  const user = new CliUser();
  for (const [typed, command] of ALIASES) {
    it(`cove ${typed.join(' ')} is cove ${command}`, async () => {
      const result = await user.run(...typed, '--help');
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`^Usage: cove ${command}(\\|\\S+)? `, 'm'));
    });
  }
});
