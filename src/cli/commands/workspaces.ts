import type { CommandSpec } from '../command.js';
import { createCommand } from './workspace-create.js';
import { cancelCommand, deleteCommand, restartCommand, startCommand, stopCommand, updateCommand } from './workspace-lifecycle.js';
import { listCommand } from './workspace-list.js';
import { showCommand } from './workspace-show.js';

/**
 * `cove workspaces`: every workspace command in one group. The everyday ones are also top-level
 * commands (`cove create`, `cove ls`, ...), as in the reference CLI.
 */
export const workspacesCommand: CommandSpec = {
  name: 'workspaces',
  aliases: ['workspace', 'ws'],
  summary: 'Create, list, show, start, stop, restart, update and delete workspaces',
  description:
    'Workspaces are built from templates. Create one with "cove create NAME --template T"; every ' +
    'command takes a workspace as NAME (yours) or OWNER/NAME.',
  subcommands: [
    createCommand,
    listCommand,
    showCommand,
    startCommand,
    stopCommand,
    restartCommand,
    updateCommand,
    deleteCommand,
    cancelCommand,
  ],
};
