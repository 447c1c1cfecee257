import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CommandSpec, OptionSpec } from '../../src/cli/command.js';
import { loginCommand } from '../../src/cli/commands/login.js';
import { pushCommand } from '../../src/cli/commands/templates-push.js';
import { usersCommand } from '../../src/cli/commands/users.js';
import { createCommand } from '../../src/cli/commands/workspace-create.js';
import { restartCommand, startCommand, updateCommand } from '../../src/cli/commands/workspace-lifecycle.js';
import { repeatableParameterOptions } from '../../src/cli/commands/workspace-parameters.js';

/** The long flag of an option and the variable it names. */
function variables(options: readonly OptionSpec[] | undefined): Record<string, string> {
  return Object.fromEntries(
    (options ?? []).flatMap((option) => {
      const long = /--[\w-]+/.exec(option.flags)?.[0];
      return long !== undefined && option.env !== undefined ? [[long, option.env]] : [];
    }),
  );
}

function sub(group: CommandSpec, name: string): CommandSpec {
  const found = group.subcommands?.find((command) => command.name === name);
  assert.ok(found, name);
  return found;
}

// The reference's variable of each option, CODER_ written COVE_; options it has none for have none.
const PARAMETERS = {
  '--rich-parameter-file': 'COVE_RICH_PARAMETER_FILE',
  '--prompt-ephemeral-parameters': 'COVE_PROMPT_EPHEMERAL_PARAMETERS',
};

describe('options name the variables the reference reads for them', () => {
  it('create, start, restart and update', () => {
    assert.deepEqual(variables(createCommand.options), {
      '--template': 'COVE_TEMPLATE_NAME',
      '--template-version': 'COVE_TEMPLATE_VERSION',
      ...PARAMETERS,
      '--use-parameter-defaults': 'COVE_WORKSPACE_USE_PARAMETER_DEFAULTS',
      '--preset': 'COVE_PRESET_NAME',
      '--ttl': 'COVE_WORKSPACE_STOP_AFTER',
      '--autostart': 'COVE_WORKSPACE_START_AT',
      '--automatic-updates': 'COVE_WORKSPACE_AUTOMATIC_UPDATES',
      '--org': 'COVE_ORGANIZATION',
    });
    for (const command of [startCommand, restartCommand, updateCommand])
      assert.deepEqual(variables(command.options), PARAMETERS, command.name);
    assert.deepEqual(variables(repeatableParameterOptions), {
      '--parameter': 'COVE_RICH_PARAMETER',
      '--ephemeral-parameter': 'COVE_EPHEMERAL_PARAMETER',
    });
  });

  it('login, users create and templates push', () => {
    assert.deepEqual(variables(loginCommand.options), {
      '--first-user-email': 'COVE_FIRST_USER_EMAIL',
      '--first-user-username': 'COVE_FIRST_USER_USERNAME',
      '--first-user-password': 'COVE_FIRST_USER_PASSWORD',
      '--first-user-full-name': 'COVE_FIRST_USER_FULL_NAME',
    });
    assert.deepEqual(variables(sub(usersCommand, 'create').options), { '--org': 'COVE_ORGANIZATION' });
    assert.deepEqual(variables(pushCommand.options), { '--org': 'COVE_ORGANIZATION' });
  });
});
