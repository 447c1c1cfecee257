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
    // The token leaves the machine's stores first, so a deployment that cannot be reached (or a
    // session that already ended) never leaves it behind.
    let notRemoved: unknown;
    try {
      await secrets.delete(url);
    } catch (error) {
      notRemoved = error;
    }
    if (token) {
      try {
        await context.newClient(url, token).logout();
      } catch (error) {
        // A session that already expired is as good as ended.
        if (!(error instanceof ApiError && error.status === 401)) throw error;
      }
    }
    // The session is over, so a copy the keychain still holds no longer signs anyone in.
    if (notRemoved) throw notRemoved;
    if (context.json) printJson(context.io, { url, signed_out: true });
    else context.say(`Signed out of ${url}.`);
    return 0;
  },
};
