import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { parseWorkspaceRef, resolveWorkspace } from '../workspace-ref.js';

const POLICIES = ['always', 'never'] as const;

/** `cove autoupdate WORKSPACE always|never`: PUT /workspaces/{id}/autoupdates. */
export const autoupdateCommand: CommandSpec = {
  name: 'autoupdate',
  summary: "Choose whether a workspace moves to its template's active version when it starts",
  description:
    'With "always", every start (by hand or on schedule) builds the workspace on its template\'s ' +
    'active version; with "never", it keeps the version it has until "cove update".',
  arguments: [
    { name: 'workspace', description: 'NAME or OWNER/NAME', required: true },
    { name: 'policy', description: 'always or never', required: true },
  ],
  examples: ['cove autoupdate dev always', 'cove autoupdate alice/dev never -o json'],
  async run(context, [name = '', given = ''], _options) {
    const policy = POLICIES.find((p) => p === given.toLowerCase());
    if (!policy) throw new CliError(`"${given}" is not an update policy.`, { hint: 'Use "always" or "never".' });
    const client = await context.client();
    const ref = parseWorkspaceRef(name);
    const workspace = await resolveWorkspace(client, ref);
    await client.updateWorkspaceAutomaticUpdates(workspace.id, policy);
    if (context.json) printJson(context.io, await client.workspace(workspace.id));
    else context.say(`Workspace "${ref.text}" now updates automatically: ${policy}.`);
    return 0;
  },
};
