import { ApiError } from '../../sdk/api-error.js';
import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';

/** `cove logout`: ends the session on the server and forgets the stored token. */
export const logoutCommand: CommandSpec = {
  name: 'logout',
  summary: 'Sign out and forget the session token',
  async run(context) {
    const url = context.deploymentUrl();
    const secrets = await context.secrets();
    const token = await context.sessionToken(url);
    if (token) {
      try {
        await (await context.client()).logout();
      } catch (error) {
        // A session that already expired is as good as ended; forget it all the same.
        if (!(error instanceof ApiError && error.status === 401)) throw error;
      }
    }
    await secrets.delete(url);
    if (context.json) printJson(context.io, { url, signed_out: true });
    else context.say(`Signed out of ${url}.`);
    return 0;
  },
};
