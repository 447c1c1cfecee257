import { VERSION } from '../../lib/version.js';
import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';

/** `cove version`: this binary's version and, when a deployment is known, the deployment's. */
export const versionCommand: CommandSpec = {
  name: 'version',
  summary: 'Show the version of cove and of the deployment',
  async run(context) {
    const url = context.global.url ?? context.io.env['COVE_URL'] ?? context.savedConfig().url;
    const server = url
      ? await context
          .newClient(url)
          .buildInfo()
          .catch(() => undefined)
      : undefined;
    if (context.json) {
      printJson(context.io, { version: VERSION, node: process.version, server: server ? { url, version: server.version } : null });
      return 0;
    }
    context.say(`cove v${VERSION} (node ${process.version})`);
    if (server) context.say(`deployment ${url}: v${server.version}`);
    return 0;
  },
};
