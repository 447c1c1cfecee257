import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { parseWorkspaceRef, resolveWorkspace } from '../workspace-ref.js';

/** `cove favorite` and `cove unfavorite` differ only in the direction. */
function favoriteSpec(favorite: boolean): CommandSpec {
  const verb = favorite ? 'favorite' : 'unfavorite';
  return {
    name: verb,
    aliases: favorite ? ['fav', 'favourite'] : ['unfav', 'unfavourite'],
    summary: favorite ? 'Mark a workspace as a favorite, listed first' : 'Remove the favorite mark from a workspace',
    description: favorite
      ? 'Mark one of your workspaces as a favorite: "cove list" and the dashboard show favorites first.'
      : 'Remove the favorite mark from one of your workspaces.',
    arguments: [{ name: 'workspace', description: 'NAME or OWNER/NAME', required: true }],
    examples: [`cove ${verb} dev`, `cove ${verb} dev -o json`],
    async run(context, [name = ''], _options) {
      const client = await context.client();
      const ref = parseWorkspaceRef(name);
      const workspace = await resolveWorkspace(client, ref);
      await client.favoriteWorkspace(workspace.id, favorite);
      if (context.json) printJson(context.io, await client.workspace(workspace.id));
      else context.say(`Workspace "${ref.text}" is ${favorite ? 'now a favorite' : 'no longer a favorite'}.`);
      return 0;
    },
  };
}

/** `cove favorite WORKSPACE`: PUT /workspaces/{id}/favorite. */
export const favoriteCommand = favoriteSpec(true);

/** `cove unfavorite WORKSPACE`: DELETE /workspaces/{id}/favorite. */
export const unfavoriteCommand = favoriteSpec(false);
