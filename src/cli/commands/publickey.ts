import type { CommandSpec } from '../command.js';
import { confirm, yesOption } from '../confirm.js';
import { printJson } from '../output.js';

/** `cove publickey [--reset]`: the public half of the key workspaces use for git over SSH. */
export const publickeyCommand: CommandSpec = {
  name: 'publickey',
  aliases: ['pubkey'],
  summary: 'Print your public key for git over SSH in your workspaces',
  description:
    'Print the public SSH key your workspaces use for git: add it to GitHub, GitLab or your git ' +
    'server, and clones over SSH in any workspace authenticate with it. --reset makes a new key ' +
    'pair; the old key stops working wherever it was added.',
  options: [{ flags: '--reset', description: 'Make a new key pair (asks first unless -y)', default: false }, yesOption],
  examples: ['cove publickey', 'cove publickey --reset -y', 'cove publickey -o json'],
  async run(context, _args, options) {
    const client = await context.client();
    let key;
    if (options['reset'] === true) {
      await confirm(context, 'Make a new git SSH key for your workspaces? The old key stops working where it was added.', {
        yes: options['yes'] === true,
        action: 'Replacing your git SSH key',
        canceled: 'the key was not replaced',
      });
      key = await client.regenerateGitSshKey();
    } else {
      key = await client.gitSshKey();
    }
    if (context.json) {
      printJson(context.io, key);
      return 0;
    }
    // The key alone on stdout, so `cove publickey > key.pub` works; the advice goes to stderr.
    context.io.stderr.write('Your workspaces use this public key for git over SSH. Add it to your git host, for example:\n');
    context.io.stderr.write('  https://github.com/settings/ssh/new\n  https://gitlab.com/-/user_settings/ssh_keys\n');
    context.io.stdout.write(`${key.public_key.trim()}\n`);
    return 0;
  },
};
