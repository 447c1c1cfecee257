import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';

/** `cove whoami`: the signed-in user. */
export const whoamiCommand: CommandSpec = {
  name: 'whoami',
  summary: 'Show the signed-in user',
  async run(context) {
    const client = await context.client();
    const user = await client.user('me');
    if (context.json) {
      printJson(context.io, user);
      return 0;
    }
    const roles = user.roles.map((role) => role.name).join(', ') || 'member';
    context.say(`${user.username} <${user.email}> on ${client.url} (roles: ${roles}; status: ${user.status})`);
    return 0;
  },
};
