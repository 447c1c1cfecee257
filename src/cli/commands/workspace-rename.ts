import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { canPrompt, prompt } from '../prompt.js';
import { parseWorkspaceRef, resolveWorkspace } from '../workspace-ref.js';

/** `cove rename WORKSPACE NEW_NAME`: PATCH /workspaces/{id} with the new name, after a typed confirmation. */
export const renameCommand: CommandSpec = {
  name: 'rename',
  summary: 'Rename a workspace',
  description:
    'Give a workspace a new name. A template whose resources use the workspace name (a volume, ' +
    'a container, a host name) may make new ones under the new name on the next build and lose ' +
    'what the old ones held: back up data first. The deployment must allow renames ' +
    '(cove serve --allow-workspace-renames).',
  arguments: [
    { name: 'workspace', description: 'NAME or OWNER/NAME', required: true },
    { name: 'new-name', description: 'the new name', required: true },
  ],
  options: [{ flags: '-y, --yes', description: 'Rename without asking', default: false }],
  examples: ['cove rename dev dev-old', 'cove rename alice/dev dev2 -y -o json'],
  async run(context, [name = '', newName = ''], options) {
    const client = await context.client();
    const ref = parseWorkspaceRef(name);
    const workspace = await resolveWorkspace(client, ref);
    if (options['yes'] !== true) {
      if (!canPrompt(context.io))
        throw new CliError(`Renaming workspace "${ref.text}" needs confirmation.`, { hint: 'Pass -y to rename without asking.' });
      context.io.stderr.write(
        'WARNING: renaming can lose data when a resource of the template uses the workspace name (a volume, say). ' +
          'Back up what you need before going on.\n',
      );
      const typed = await prompt(context.io, `Type "${workspace.name}" to confirm the rename: `);
      if (typed.trim() !== workspace.name)
        throw new CliError(`Canceled: "${typed.trim()}" is not "${workspace.name}"; nothing was renamed.`);
    }
    await client.renameWorkspace(workspace.id, newName);
    if (context.json) printJson(context.io, await client.workspace(workspace.id));
    else context.say(`Workspace "${ref.text}" is now "${newName}".`);
    return 0;
  },
};
